#include "copa/topology.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace copa {

namespace {

// One <object type="..." attributes...> element of hwloc's XML: its type and attributes.
struct XmlObject {
  std::string type;
  std::map<std::string, std::string> attributes;
};

std::vector<XmlObject> xml_objects(const std::string& xml) {
  static const std::regex object(R"re(<object\s+type="([A-Za-z0-9]+)"([^>]*)>)re");
  static const std::regex attribute(R"re(([a-z_]+)="([^"]*)")re");
  std::vector<XmlObject> out;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), object); it != std::sregex_iterator(); ++it) {
    XmlObject o{(*it)[1], {}};
    const std::string attrs = (*it)[2];
    for (auto a = std::sregex_iterator(attrs.begin(), attrs.end(), attribute); a != std::sregex_iterator(); ++a)
      o.attributes[(*a)[1]] = (*a)[2];
    out.push_back(std::move(o));
  }
  return out;
}

// hwloc names data and unified caches L1Cache, L2Cache, ...; instruction caches L1iCache (left out:
// the roofline's working sets are data).
std::string cache_level(const std::string& type) {
  static const std::regex data_cache(R"(L([1-5])Cache)");
  std::smatch m;
  if (!std::regex_match(type, m, data_cache)) return "";
  return m[1] == "1" ? "L1d" : "L" + std::string(m[1]);
}

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  return pclose(pipe) == 0 ? out : std::string();
}

}  // namespace

nlohmann::json topology_from_hwloc_xml(const std::string& xml) {
  std::map<std::string, int> counts;
  std::map<std::string, std::pair<double, int>> caches;  // level -> (bytes of one, instances)
  double numa_memory = 0;
  for (const XmlObject& o : xml_objects(xml)) {
    ++counts[o.type];
    if (o.type == "NUMANode" && o.attributes.count("local_memory"))
      numa_memory += std::stod(o.attributes.at("local_memory"));
    const std::string level = cache_level(o.type);
    if (!level.empty() && o.attributes.count("cache_size")) {
      auto& c = caches[level];
      c.first = std::max(c.first, std::stod(o.attributes.at("cache_size")));
      ++c.second;
    }
  }
  nlohmann::json cache_json = nlohmann::json::object();
  for (const auto& [level, c] : caches) cache_json[level] = {{"bytes", c.first}, {"count", c.second}};
  return {{"source", "hwloc (lstopo)"},
          {"sockets", counts["Package"]},
          {"numa_nodes", counts["NUMANode"]},
          {"cores", counts["Core"]},
          {"threads", counts["PU"]},
          {"numa_memory_bytes", numa_memory},
          {"caches", cache_json}};
}

nlohmann::json topology_from_cpuinfo(std::istream& cpuinfo) {
  std::set<std::string> sockets;
  std::set<std::pair<std::string, std::string>> cores;
  int threads = 0;
  std::string line, socket = "0", cache;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const auto start = line.find_first_not_of(' ', colon + 1);
    const std::string value = start == std::string::npos ? "" : line.substr(start);
    if (key == "processor") ++threads;
    if (key == "physical id") sockets.insert(socket = value);
    if (key == "core id") cores.insert({socket, value});
    if (key == "cache size") cache = value;
  }
  nlohmann::json out = {{"source", "/proc/cpuinfo (hwloc not found)"},
                        {"sockets", std::max<std::size_t>(sockets.size(), threads > 0 ? 1 : 0)},
                        {"numa_nodes", nullptr},
                        {"cores", cores.empty() ? nlohmann::json(threads) : nlohmann::json(cores.size())},
                        {"threads", threads},
                        {"numa_memory_bytes", nullptr},
                        {"caches", nlohmann::json::object()}};
  // "cache size : 512 KB": the kernel's figure for the cache it calls last-level; the level is not said.
  std::istringstream c(cache);
  double kb = 0;
  if (c >> kb) out["caches"]["last_level"] = {{"bytes", kb * 1024}, {"count", nullptr}};
  return out;
}

const nlohmann::json& cpu_topology() {
  static const nlohmann::json topology = [] {
    const std::string xml = run("lstopo-no-graphics --of xml --no-io 2>/dev/null");
    if (xml.find("<object") != std::string::npos) return topology_from_hwloc_xml(xml);
    std::ifstream in("/proc/cpuinfo");
    return topology_from_cpuinfo(in);
  }();
  return topology;
}

}  // namespace copa
