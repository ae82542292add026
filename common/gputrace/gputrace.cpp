// copa-gputrace: a CUDA injection library (CUDA_INJECTION64_PATH) that records the GPU timeline of
// any CUDA program through CUPTI's activity API and writes it as CSV when the program exits.
// Nsight Systems is not installed on the GPU machines copa is measured on (device/KINDS.md); this
// records what nsys would show for the question "where does the GPU idle": every kernel, copy and
// memset with its stream, and every host wait on the GPU (event, stream, context synchronisation).
//
//   COPA_GPUTRACE=trace-%r.csv CUDA_INJECTION64_PATH=.../libcopa_gputrace.so ./app ...
//
// %p in the file name becomes the process id, %r the MPI rank (OMPI_COMM_WORLD_RANK, PMI_RANK or
// SLURM_PROCID; 0 without one). Columns: kind (kernel, memcpy, memset, sync), start and end (ns,
// CUPTI's clock, the same for host and device records of one process), device, stream, and the
// kernel's name, the copy's direction and bytes, or the synchronisation's type.
// scripts/gputrace-summary turns a file into busy time, idle gaps and their neighbours.
#include <cupti.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

struct Record {
  const char* kind;
  std::uint64_t start, end;
  std::uint32_t device, stream;
  std::string what;
};

std::mutex records_mutex;
std::vector<Record> records;
constexpr std::size_t kBufferBytes = 8u << 20;

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "copa-gputrace: %s failed: %s\n", what, text ? text : "unknown CUPTI error");
}

// Kernel names without their parameter lists and anonymous namespaces: the template arguments stay
// (they tell the variants apart), the argument types only lengthen the lines.
std::string kernel_name(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = (status == 0 && demangled) ? demangled : mangled;
  std::free(demangled);
  const std::string anonymous = "(anonymous namespace)::";
  for (std::size_t at; (at = name.find(anonymous)) != std::string::npos;) name.erase(at, anonymous.size());
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0) return name.substr(0, i);
  }
  return name;
}

const char* copy_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "other";
  }
}

const char* sync_kind(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "event_synchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "stream_wait_event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "stream_synchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "context_synchronize";
    default: return "other";
  }
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  std::vector<Record> got;
  CUpti_Activity* a = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
    switch (a->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
        got.push_back({"kernel", k->start, k->end, k->deviceId, k->streamId, kernel_name(k->name)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
        got.push_back({"memcpy", m->start, m->end, m->deviceId, m->streamId,
                       std::string(copy_kind(m->copyKind)) + " " + std::to_string(m->bytes) + " B"});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
        got.push_back({"memset", m->start, m->end, m->deviceId, m->streamId, std::to_string(m->bytes) + " B"});
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(a);
        const std::uint32_t stream = s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : s->streamId;
        got.push_back({"sync", s->start, s->end, 0, stream, sync_kind(s->type)});
        break;
      }
      default: break;
    }
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(records_mutex);
  records.insert(records.end(), got.begin(), got.end());
}

std::string output_path() {
  const char* pattern = std::getenv("COPA_GPUTRACE");
  std::string p = pattern && *pattern ? pattern : "copa-gputrace-%p.csv";
  std::string rank = "0";
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* r = std::getenv(v)) {
      rank = r;
      break;
    }
  std::string out;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '%' && i + 1 < p.size() && (p[i + 1] == 'p' || p[i + 1] == 'r')) {
      out += p[i + 1] == 'p' ? std::to_string(getpid()) : rank;
      ++i;
    } else {
      out += p[i];
    }
  }
  return out;
}

// Names may hold commas (template arguments): they are quoted, CSV style. A process that recorded
// nothing writes nothing: a helper it starts that initialises CUDA too (hwloc's lstopo, run for the
// machine report) inherits the variables and would overwrite the program's file with an empty one.
void write_records() {
  check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  {
    std::lock_guard<std::mutex> lock(records_mutex);
    if (records.empty()) return;
  }
  const std::string path = output_path();
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "copa-gputrace: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return;
  }
  std::lock_guard<std::mutex> lock(records_mutex);
  std::fprintf(f, "kind,start_ns,end_ns,device,stream,what\n");
  for (const Record& r : records) {
    std::string what;
    for (char c : r.what) what += c == '"' ? std::string("\"\"") : std::string(1, c);
    std::fprintf(f, "%s,%llu,%llu,%u,%u,\"%s\"\n", r.kind, static_cast<unsigned long long>(r.start),
                 static_cast<unsigned long long>(r.end), r.device, r.stream, what.c_str());
  }
  std::fclose(f);
  std::fprintf(stderr, "copa-gputrace: %zu records in %s\n", records.size(), path.c_str());
}

}  // namespace

// Called by the CUDA driver at cuInit when CUDA_INJECTION64_PATH names this library. The exit
// handler registered here runs before the CUDA runtime's own (registered earlier), while the
// context still exists.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION})
    check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  std::atexit(write_records);
  return 1;
}
