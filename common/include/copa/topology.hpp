// The CPU side of a machine as hwloc sees it: sockets, NUMA nodes, cores, hardware threads and the
// data caches (per level: size of one instance and how many there are). Read from
// `lstopo-no-graphics --of xml` (hwloc's own description); without hwloc, from /proc/cpuinfo
// (sockets, cores, the last-level cache line of the kernel).
#pragma once
#include <istream>
#include <string>

#include <nlohmann/json.hpp>

namespace copa {

// The topology of this machine (computed once per process): {"source", "sockets", "numa_nodes",
// "cores", "threads", "numa_memory_bytes", "caches": {"L1d"|"L2"|"L3": {"bytes", "count"}}}.
const nlohmann::json& cpu_topology();

// The parsers behind it, for tests: hwloc's XML, and /proc/cpuinfo's text.
nlohmann::json topology_from_hwloc_xml(const std::string& xml);
nlohmann::json topology_from_cpuinfo(std::istream& cpuinfo);

}  // namespace copa
