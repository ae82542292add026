#include "element_split.hpp"

#include <cstddef>

#include "copa/errors.hpp"

namespace laghos {

ElementSplit split_elements(const Discretization& d, const std::vector<char>& shared) {
  if (shared.size() != static_cast<std::size_t>(d.nh1))
    throw copa::RuntimeError("split_elements: the shared-dof mask does not match the H1 space");
  ElementSplit s;
  for (int e = 0; e < d.NE; ++e) {
    const int* map = &d.h1_map[static_cast<std::size_t>(e) * d.nd];
    bool touches = false;
    for (int i = 0; i < d.nd && !touches; ++i) touches = shared[map[i]] != 0;
    (touches ? s.boundary : s.interior).push_back(e);
  }
  for (int g = 0; g < d.nh1; ++g) (shared[g] ? s.shared_dofs : s.other_dofs).push_back(g);
  return s;
}

}  // namespace laghos
