// The machine block's CPU topology: hwloc's XML and /proc/cpuinfo parsed on known inputs, and the
// machine of this run described by one of them.
#include <sstream>
#include <string>

#include "copa/machine.hpp"
#include "copa/testing.hpp"
#include "copa/topology.hpp"

namespace {

// One socket of it: NUMA node, L3, and two cores with an L2 and an L1 each.
std::string socket_xml(int index) {
  const std::string core =
      R"(    <object type="L2Cache" cache_size="1048576" depth="2"><object type="L1Cache" cache_size="49152" depth="1">
     <object type="L1iCache" cache_size="32768" depth="1"><object type="Core"><object type="PU"/><object type="PU"/></object></object></object></object>
)";
  const std::string i = std::to_string(index);
  return "  <object type=\"Package\" os_index=\"" + i + "\">\n   <object type=\"NUMANode\" os_index=\"" + i +
         "\" local_memory=\"68719476736\"/>\n"
         "   <object type=\"L3Cache\" cache_size=\"33554432\" depth=\"3\" cache_linesize=\"64\">\n" +
         core + core + "   </object>\n  </object>\n";
}

// Two sockets, one NUMA node each, two cores per socket with an L2 each, one L3 per socket
// (lstopo --of xml, attributes trimmed to those read).
const std::string two_socket_xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<topology version="2.0">
 <object type="Machine" os_index="0">
)" + socket_xml(0) + socket_xml(1) + R"( </object>
</topology>)";

}  // namespace

TEST(Topology, hwloc_xml_gives_sockets_numa_nodes_and_caches) {
  const auto t = copa::topology_from_hwloc_xml(two_socket_xml);
  EXPECT_EQ(t["source"], "hwloc (lstopo)");
  EXPECT_EQ(t["sockets"], 2);
  EXPECT_EQ(t["numa_nodes"], 2);
  EXPECT_EQ(t["cores"], 4);
  EXPECT_EQ(t["threads"], 8);
  EXPECT_EQ(t["numa_memory_bytes"], 2 * 68719476736.0);
  EXPECT_EQ(t["caches"]["L3"]["bytes"], 33554432.0);
  EXPECT_EQ(t["caches"]["L3"]["count"], 2);
  EXPECT_EQ(t["caches"]["L2"]["count"], 4);
  EXPECT_EQ(t["caches"]["L1d"]["bytes"], 49152.0);
  EXPECT_FALSE(t["caches"].contains("L1i"));  // instruction caches are left out
}

TEST(Topology, cpuinfo_is_the_fallback_without_hwloc) {
  std::istringstream cpuinfo(
      "processor\t: 0\nphysical id\t: 0\ncore id\t\t: 0\ncache size\t: 512 KB\n\n"
      "processor\t: 1\nphysical id\t: 0\ncore id\t\t: 1\ncache size\t: 512 KB\n\n"
      "processor\t: 2\nphysical id\t: 1\ncore id\t\t: 0\ncache size\t: 512 KB\n\n");
  const auto t = copa::topology_from_cpuinfo(cpuinfo);
  EXPECT_EQ(t["source"], "/proc/cpuinfo (hwloc not found)");
  EXPECT_EQ(t["sockets"], 2);
  EXPECT_EQ(t["cores"], 3);
  EXPECT_EQ(t["threads"], 3);
  EXPECT_TRUE(t["numa_nodes"].is_null());
  EXPECT_EQ(t["caches"]["last_level"]["bytes"], 512.0 * 1024);
}

TEST(Topology, the_machine_block_describes_this_machine) {
  const auto m = copa::machine_info(copa::Backend::serial, -1);
  ASSERT_TRUE(m.contains("topology"));
  EXPECT_GE(m["topology"]["threads"].get<int>(), 1);
  EXPECT_GE(m["topology"]["sockets"].get<int>(), 1);
}
