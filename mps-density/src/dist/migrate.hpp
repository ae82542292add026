// Particle messages between ranks for the distributed simulation: a particle travels as one record
// of every field the time step carries between steps (position, velocity, pressure, type) and its
// global id, so that migration keeps ids and a ghost arrives with its owner's whole state.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "particles.hpp"

namespace mps::dist {

// x y z u v w p type id (type and id as doubles: exact, ids < 2^31).
constexpr int record_size = 9;

void append_record(const Particles& ps, std::size_t i, std::int64_t id, std::vector<double>& out);
// Appends record k of `records` to ps and its id to ids.
void take_record(const std::vector<double>& records, std::size_t k, Particles& ps, std::vector<std::int64_t>& ids);

// Appends particle i of `from` (every field) to `to`.
void copy_particle(const Particles& from, std::size_t i, Particles& to);

// Collective: outgoing[q] (whole records) goes to rank q; returns what every rank sent to this one,
// concatenated in ascending source rank, each source's records in the order it listed them.
// `from` (optional) receives the source rank of every received record. outgoing[rank()] must be
// empty. Without MPI (one rank) it returns nothing.
std::vector<double> exchange_records(const std::vector<std::vector<double>>& outgoing, std::vector<int>* from = nullptr);

}  // namespace mps::dist
