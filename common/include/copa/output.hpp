// Files copa writes (JSON documents, CSV tables, profiles): written whole or not at all.
#pragma once
#include <functional>
#include <ostream>
#include <string>

namespace copa {

// Writes `path` through `body`: into a temporary file beside it, flushed and closed with every
// error checked, then renamed over `path`, so a reader never sees half a document and a failed
// write leaves no file that looks complete. A target that exists and is not a regular file
// (/dev/null, a FIFO) is written in place, with the same checks. Any failure throws RuntimeError
// (exit 3) naming `option` and the file; the temporary file is removed.
void write_output(const std::string& path, const std::string& option,
                  const std::function<void(std::ostream&)>& body);

}  // namespace copa
