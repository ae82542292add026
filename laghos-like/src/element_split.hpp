// The element set of a rank split for --overlap: boundary elements (touching a dof shared with
// another rank) and interior elements, and the H1 dofs split the same way. Every element of a
// shared dof is a boundary element, so after the boundary elements' F 1 (or H1 mass action) is
// assembled, the shared dofs hold this rank's full partial sums: the exchange of the partials can
// start while the interior elements are computed (they write only non-shared dofs).
#pragma once
#include <vector>

#include "discretization.hpp"

namespace laghos {

struct ElementSplit {
  std::vector<int> boundary, interior;        // elements, ascending
  std::vector<int> shared_dofs, other_dofs;   // scalar H1 dofs, ascending
};

// `shared[dof]` != 0 marks the dofs this rank shares with others (SharedDofs::shared_mask).
ElementSplit split_elements(const Discretization& d, const std::vector<char>& shared);

}  // namespace laghos
