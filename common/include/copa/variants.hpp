// The variant registry: every app declares its kernel strategies in one table (name, backends, a
// one-line summary, named tuning axes with their allowed values, where it is the default), and
// --list, the default, --variant/--tuning validation, the JSON (run.variant, run.tunings) and the
// tests that iterate variants all read that table. The shape follows RAJAPerf: a variant is a
// strategy, a tuning is a parameter beside it (block size, atomic or gather, lean or staged), never
// glued into the name. docs/CONTRIBUTING.md shows how to add a row.
#pragma once
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "copa/backend.hpp"

namespace copa {

// Which rank counts a default applies to: one rank, several ranks, or any.
enum class Ranks { any, one, many };

// One named axis of a variant. values[0] is the axis's default value.
struct TuningAxis {
  std::string name;
  std::vector<std::string> values;
  std::string summary;  // what the axis changes, one line
};

// The variant is the default of `backend` for the rank counts `ranks`.
struct DefaultFor {
  Backend backend;
  Ranks ranks = Ranks::any;
};

// One row of an app's table.
struct VariantInfo {
  std::string name;
  std::vector<Backend> backends;  // where the name is offered (serial, openmp, cuda, hip)
  std::string summary;            // what it shows, one line (the README's variants table repeats it)
  std::vector<TuningAxis> tunings = {};
  std::vector<DefaultFor> default_for = {};
  bool offered_on(Backend b) const;
  const TuningAxis* axis(const std::string& name) const;  // nullptr when the variant has no such axis
};

// A resolved choice: the variant and one value for each of its axes.
struct Selection {
  const VariantInfo* variant = nullptr;
  std::map<std::string, std::string> tunings;  // axis -> value, every axis of the variant
  const std::string& name() const { return variant->name; }
  // The value of an axis; throws std::logic_error for an axis the variant does not have (a typo in
  // the app, not in the input).
  const std::string& tuning(const std::string& axis) const;
  bool is(const std::string& axis, const std::string& value) const { return tuning(axis) == value; }
  // "name" or "name[axis=value,...]" with only the axes that differ from their defaults: a stable,
  // human-readable label for tables and file names.
  std::string label() const;
  nlohmann::json tunings_json() const;  // {"axis": "value", ...}
};

class VariantRegistry {
 public:
  // Checks the table (throws std::logic_error: a programming error in the app's table): unique
  // names, every axis with at least one value and no duplicate value, and at most one default per
  // (backend, rank class): a row for `any` may not share a backend with a row for `one` or `many`.
  VariantRegistry(std::string app, std::vector<VariantInfo> rows);

  const std::string& app() const { return app_; }
  const std::vector<VariantInfo>& rows() const { return rows_; }
  // The rows offered on a backend, in table order.
  std::vector<const VariantInfo*> offered(Backend b) const;
  std::vector<std::string> names(Backend b) const;
  // The row named `name`; nullptr when there is none.
  const VariantInfo* find(const std::string& name) const;
  // The default of a backend for a rank count; throws std::logic_error when the table names none
  // (each app's registry test asserts one exists for every backend it offers).
  const VariantInfo& default_for(Backend b, int nranks) const;

  // Resolves --variant NAME (empty: the default for b and nranks) and --tuning AXIS=VALUE
  // assignments (each axis at most once; unset axes take their first value). Throws InputError
  // (exit 2) naming --variant or --tuning with the valid names or values.
  Selection select(Backend b, int nranks, const std::string& variant,
                   const std::vector<std::string>& tunings = {}) const;
  // The default variant with every axis at its default value.
  Selection default_selection(Backend b, int nranks) const;
  // Every variant offered on b, each with its default tunings (what --backend all and the tests run).
  std::vector<Selection> all_defaults(Backend b) const;
  // Every variant offered on b crossed with every value of every axis (the tests' full sweep).
  std::vector<Selection> all_tunings(Backend b) const;

  // The --list table: name, backends (built ones; "(not built)" for the others), default for,
  // summary, then one line per tuning axis with its values (default first).
  void print(std::ostream& os) const;
  // run.variants_built: {"<backend>": ["name", ...]} over the built backends.
  nlohmann::json built_json() const;

 private:
  std::string app_;
  std::vector<VariantInfo> rows_;
};

}  // namespace copa
