#include "copa/variants.hpp"

#include <algorithm>
#include <array>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>

#include "copa/errors.hpp"

namespace copa {

namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

const char* to_string(Ranks r) {
  switch (r) {
    case Ranks::any: return "any ranks";
    case Ranks::one: return "1 rank";
    case Ranks::many: return ">1 ranks";
  }
  return "?";
}

bool ranks_match(Ranks r, int nranks) {
  return r == Ranks::any || (r == Ranks::one && nranks <= 1) || (r == Ranks::many && nranks > 1);
}

// Two default entries for one backend clash when some rank count matches both.
bool ranks_overlap(Ranks a, Ranks b) { return a == Ranks::any || b == Ranks::any || a == b; }

}  // namespace

bool VariantInfo::offered_on(Backend b) const {
  return std::find(backends.begin(), backends.end(), b) != backends.end();
}

const TuningAxis* VariantInfo::axis(const std::string& n) const {
  for (const auto& a : tunings)
    if (a.name == n) return &a;
  return nullptr;
}

const std::string& Selection::tuning(const std::string& axis) const {
  const auto it = tunings.find(axis);
  if (it == tunings.end())
    throw std::logic_error("variant '" + name() + "' has no tuning axis '" + axis + "'");
  return it->second;
}

std::string Selection::label() const {
  std::vector<std::string> changed;
  for (const auto& a : variant->tunings) {
    const std::string& v = tuning(a.name);
    if (v != a.values.front()) changed.push_back(a.name + "=" + v);
  }
  return changed.empty() ? name() : name() + "[" + join(changed, ",") + "]";
}

nlohmann::json Selection::tunings_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : tunings) j[k] = v;
  return j;
}

VariantRegistry::VariantRegistry(std::string app, std::vector<VariantInfo> rows)
    : app_(std::move(app)), rows_(std::move(rows)) {
  std::set<std::string> names;
  std::vector<std::pair<DefaultFor, std::string>> defaults;
  for (const auto& r : rows_) {
    if (r.name.empty() || !names.insert(r.name).second)
      throw std::logic_error(app_ + ": variant table: empty or repeated name '" + r.name + "'");
    if (r.backends.empty()) throw std::logic_error(app_ + ": variant '" + r.name + "' names no backend");
    std::set<std::string> axes;
    for (const auto& a : r.tunings) {
      if (a.name.empty() || !axes.insert(a.name).second || a.values.empty())
        throw std::logic_error(app_ + ": variant '" + r.name + "': tuning axis '" + a.name +
                               "' is empty, unnamed or repeated");
      std::set<std::string> values(a.values.begin(), a.values.end());
      if (values.size() != a.values.size())
        throw std::logic_error(app_ + ": variant '" + r.name + "': axis '" + a.name + "' repeats a value");
    }
    for (const auto& d : r.default_for) {
      if (!r.offered_on(d.backend))
        throw std::logic_error(app_ + ": variant '" + r.name + "' is a default of " + to_string(d.backend) +
                               ", which it is not offered on");
      for (const auto& [other, who] : defaults)
        if (other.backend == d.backend && ranks_overlap(other.ranks, d.ranks))
          throw std::logic_error(app_ + ": two defaults of " + to_string(d.backend) + ": '" + who + "' and '" +
                                 r.name + "'");
      defaults.emplace_back(d, r.name);
    }
  }
}

std::vector<const VariantInfo*> VariantRegistry::offered(Backend b) const {
  std::vector<const VariantInfo*> out;
  for (const auto& r : rows_)
    if (r.offered_on(b)) out.push_back(&r);
  return out;
}

std::vector<std::string> VariantRegistry::names(Backend b) const {
  std::vector<std::string> out;
  for (const auto* r : offered(b)) out.push_back(r->name);
  return out;
}

const VariantInfo* VariantRegistry::find(const std::string& name) const {
  for (const auto& r : rows_)
    if (r.name == name) return &r;
  return nullptr;
}

const VariantInfo& VariantRegistry::default_for(Backend b, int nranks) const {
  for (const auto& r : rows_)
    for (const auto& d : r.default_for)
      if (d.backend == b && ranks_match(d.ranks, nranks)) return r;
  throw std::logic_error(app_ + ": the variant table names no default for " + to_string(b) + " on " +
                         std::to_string(nranks) + " rank(s)");
}

Selection VariantRegistry::select(Backend b, int nranks, const std::string& variant,
                                  const std::vector<std::string>& tunings) const {
  Selection s;
  if (variant.empty()) {
    s.variant = &default_for(b, nranks);
  } else {
    s.variant = find(variant);
    if (s.variant == nullptr || !s.variant->offered_on(b))
      throw InputError("--variant: '" + variant + "' is not a variant of backend " + to_string(b) +
                       " (offered: " + join(names(b), ", ") + ")");
  }
  for (const auto& a : s.variant->tunings) s.tunings[a.name] = a.values.front();
  std::set<std::string> seen;
  for (const auto& t : tunings) {
    const auto eq = t.find('=');
    const std::string key = t.substr(0, eq), value = eq == std::string::npos ? "" : t.substr(eq + 1);
    std::vector<std::string> axes;
    for (const auto& a : s.variant->tunings) axes.push_back(a.name);
    if (eq == std::string::npos || key.empty() || value.empty())
      throw InputError("--tuning: '" + t + "' is not AXIS=VALUE (axes of " + s.name() + ": " +
                       (axes.empty() ? "none" : join(axes, ", ")) + ")");
    const TuningAxis* a = s.variant->axis(key);
    if (a == nullptr)
      throw InputError("--tuning: variant " + s.name() + " has no axis '" + key + "' (axes: " +
                       (axes.empty() ? "none" : join(axes, ", ")) + ")");
    if (!seen.insert(key).second) throw InputError("--tuning: axis '" + key + "' is given twice");
    if (std::find(a->values.begin(), a->values.end(), value) == a->values.end())
      throw InputError("--tuning: '" + value + "' is not a value of " + s.name() + "'s axis " + key +
                       " (values: " + join(a->values, ", ") + ")");
    s.tunings[key] = value;
  }
  return s;
}

Selection VariantRegistry::default_selection(Backend b, int nranks) const { return select(b, nranks, ""); }

std::vector<Selection> VariantRegistry::all_defaults(Backend b) const {
  std::vector<Selection> out;
  for (const auto* r : offered(b)) out.push_back(select(b, 1, r->name));
  return out;
}

std::vector<Selection> VariantRegistry::all_tunings(Backend b) const {
  std::vector<Selection> out;
  for (const auto* r : offered(b)) {
    std::vector<Selection> partial{select(b, 1, r->name)};
    for (const auto& a : r->tunings) {
      std::vector<Selection> next;
      for (const auto& p : partial)
        for (const auto& v : a.values) {
          Selection s = p;
          s.tunings[a.name] = v;
          next.push_back(std::move(s));
        }
      partial = std::move(next);
    }
    out.insert(out.end(), partial.begin(), partial.end());
  }
  return out;
}

void VariantRegistry::print(std::ostream& os) const {
  std::vector<std::string> built;
  for (Backend b : built_backends()) built.push_back(to_string(b));
  os << app_ << ": variants (backends built: " << join(built, ", ") << ")\n";
  std::size_t wn = 7, wb = 8, wd = 7;
  std::vector<std::array<std::string, 4>> lines;
  for (const auto& r : rows_) {
    std::vector<std::string> bs, ds;
    for (Backend b : r.backends) bs.push_back(to_string(b) + (is_built(b) ? "" : "*"));
    for (const auto& d : r.default_for)
      ds.push_back(to_string(d.backend) + (d.ranks == Ranks::any ? "" : std::string(" (") + to_string(d.ranks) + ")"));
    lines.push_back({r.name, join(bs, ","), ds.empty() ? "-" : join(ds, ", "), r.summary});
    wn = std::max(wn, r.name.size());
    wb = std::max(wb, lines.back()[1].size());
    wd = std::max(wd, lines.back()[2].size());
  }
  auto row = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d) {
    os << "  " << std::left << std::setw(int(wn)) << a << "  " << std::setw(int(wb)) << b << "  "
       << std::setw(int(wd)) << c << "  " << d << "\n";
  };
  row("variant", "backends", "default", "summary");
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    row(lines[i][0], lines[i][1], lines[i][2], lines[i][3]);
    for (const auto& a : rows_[i].tunings)
      os << "  " << std::string(wn, ' ') << "    --tuning " << a.name << "=" << join(a.values, "|") << "  ("
         << a.summary << "; default " << a.values.front() << ")\n";
  }
  os << "  (* not built in this executable)\n";
}

nlohmann::json VariantRegistry::built_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (Backend b : built_backends()) j[to_string(b)] = names(b);
  return j;
}

}  // namespace copa
