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

// The check before any work that write_output will be able to write `path` (empty: nothing to
// check). Throws InputError (exit 2) naming `option` when the path is a directory, its directory
// is missing, or a file cannot be created there. The test creates and removes a probe file of this
// process (MPI rank and pid in its name) beside `path`, as write_output's temporary file will be:
// creating a file, rather than asking access(), also refuses read-only file systems and root's
// writes to /proc, and every rank of a run can check the same path at once. A device or FIFO
// (/dev/null) is checked with access(), since it is written in place.
void require_writable_output(const std::string& option, const std::string& path);

}  // namespace copa
