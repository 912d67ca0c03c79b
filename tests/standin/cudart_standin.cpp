// CPU stand-in of the CUDA runtime subset fabcheck calls, built as libcudart.so.13 (version node
// libcudart.so.13, as the real library's symbols) so that the fabcheck binary built against CUDA runs on it.
//
// Faithful where fabcheck's logic depends on it:
// - device memory is a shared-memory file mapped twice: the pointer handed out is PROT_NONE (the host
// touching a
//   device pointer faults, as without unified memory), the stand-in works on the second, writable view;
// - every stream has its own worker thread; work is asynchronous: cudaStreamQuery says cudaErrorNotReady
// until
//   the stream drained, events record when the stream reaches them (cudaEventElapsedTime times what the
//   stream did, cudaErrorNotReady before); cudaMemcpyAsync to pageable host memory returns once the copy
//   completed and from pageable host memory stages the bytes at the call (CUDA runtime API, "API
//   synchronization behavior");
// - stream capture records the stream's work into a graph instead of running it; synchronising a capturing
//   stream is cudaErrorStreamCaptureUnsupported; a graph launch replays the recorded work on a stream;
// - a kernel from cudaLibraryLoadData(PTX) cannot run on a CPU: a launch occupies its stream for
//   CUDA_STANDIN_KERNEL_NS (default 20) ns per unit of its first 64-bit argument (fabcheck_fma_spin's units).
// Environment: CUDA_STANDIN_DEVICES (per host, default 8), CUDA_STANDIN_SM (default 90),
// CUDA_STANDIN_MEM_GIB (default 80) or CUDA_STANDIN_MEM_MIB, STANDIN_FAULT=nodevice@RANK (that rank sees no
// device).
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "standin.hpp"

namespace standin {
namespace {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return end != nullptr && *end == '\0' ? x : fallback;
}

thread_local cudaError_t tl_last_error = cudaSuccess;
thread_local int tl_device = 0;

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) tl_last_error = e;
  return e;
}

// ---------- streams ----------

struct Graph {
  std::vector<Task> nodes;
};

struct Stream {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Task> queue;
  bool busy = false;
  bool stop = false;
  Graph* capture = nullptr;  // non-null while capturing
  std::thread worker;

  Stream() {
    worker = std::thread([this] { run(); });
  }
  void run() {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      cv.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;
      Task t = std::move(queue.front());
      queue.pop_front();
      busy = true;
      lock.unlock();
      t();
      lock.lock();
      busy = false;
      cv.notify_all();
    }
  }
  bool idle() const { return queue.empty() && !busy; }
  void push(Task t) {
    std::lock_guard<std::mutex> lock(mu);
    queue.push_back(std::move(t));
    cv.notify_all();
  }
  void wait_idle() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return idle(); });
  }
};

// Streams live until cudaStreamDestroy; the registry itself is never destroyed (worker threads may still be
// blocked in a hung collective when the process exits).
std::mutex g_streams_mu;
std::set<Stream*>* g_streams = new std::set<Stream*>();
Stream* g_legacy = nullptr;

Stream* stream_of(cudaStream_t s) {
  std::lock_guard<std::mutex> lock(g_streams_mu);
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) {
    if (g_legacy == nullptr) g_legacy = new Stream();
    return g_legacy;
  }
  auto* st = reinterpret_cast<Stream*>(s);
  return g_streams->count(st) != 0 ? st : nullptr;
}

// ---------- device memory ----------

struct Alloc {
  char* dev;
  char* host;
  std::size_t bytes;
  std::size_t mapped;
  int device;
};
std::mutex g_mem_mu;
std::map<std::uintptr_t, Alloc>* g_allocs = new std::map<std::uintptr_t, Alloc>();

std::size_t device_total_bytes() {
  if (const long mib = env_long("CUDA_STANDIN_MEM_MIB", 0); mib > 0)
    return static_cast<std::size_t>(mib) << 20;
  return static_cast<std::size_t>(env_long("CUDA_STANDIN_MEM_GIB", 80)) << 30;
}
std::size_t device_used_bytes(int device) {
  std::size_t used = 0;
  for (const auto& [base, a] : *g_allocs) {
    if (a.device == device) used += a.mapped;
  }
  return used;
}

const Alloc* find_alloc(const void* p) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  auto it = g_allocs->upper_bound(addr);
  if (it == g_allocs->begin()) return nullptr;
  --it;
  return addr < it->first + it->second.bytes ? &it->second : nullptr;
}

// ---------- events, graphs, libraries ----------

struct Event {
  std::mutex mu;
  bool recorded = false;
  bool done = false;
  std::chrono::steady_clock::time_point at;
};
std::mutex g_objs_mu;
std::set<Event*>* g_events = new std::set<Event*>();
std::set<Graph*>* g_graphs = new std::set<Graph*>();

struct Library {
  std::set<std::string> entries;
};
struct Kernel {
  std::string name;
};
std::set<Library*>* g_libraries = new std::set<Library*>();
std::set<Kernel*>* g_kernels = new std::set<Kernel*>();

int device_count() {
  if (const auto f = fault_for(launcher_rank()); f && f->kind == "nodevice") return 0;
  return static_cast<int>(env_long("CUDA_STANDIN_DEVICES", 8));
}

cudaError_t check_device(int device) {
  const int n = device_count();
  if (n == 0) return cudaErrorNoDevice;
  return device < 0 || device >= n ? cudaErrorInvalidDevice : cudaSuccess;
}

}  // namespace

// ---------- the internal interface (standin.hpp) ----------

cudaError_t enqueue(cudaStream_t stream, Task task) {
  Stream* s = stream_of(stream);
  if (s == nullptr) return cudaErrorInvalidResourceHandle;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->capture != nullptr) {
      s->capture->nodes.push_back(std::move(task));
      return cudaSuccess;
    }
  }
  s->push(std::move(task));
  return cudaSuccess;
}

bool capturing(cudaStream_t stream) {
  Stream* s = stream_of(stream);
  if (s == nullptr) return false;
  std::lock_guard<std::mutex> lock(s->mu);
  return s->capture != nullptr;
}

void* host_view(const void* dev, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mem_mu);
  const Alloc* a = find_alloc(dev);
  if (a == nullptr) return nullptr;
  const std::size_t off = static_cast<std::size_t>(static_cast<const char*>(dev) - a->dev);
  if (off + bytes > a->bytes) return nullptr;
  return a->host + off;
}

cudaError_t device_alloc(void** ptr, std::size_t bytes) {
  if (ptr == nullptr) return cudaErrorInvalidValue;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t mapped = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
  std::lock_guard<std::mutex> lock(g_mem_mu);
  if (device_used_bytes(tl_device) + mapped > device_total_bytes()) return cudaErrorMemoryAllocation;
  const int fd = ::memfd_create("cuda-standin", MFD_CLOEXEC);
  if (fd < 0) return cudaErrorMemoryAllocation;
  if (::ftruncate(fd, static_cast<off_t>(mapped)) != 0) {
    ::close(fd);
    return cudaErrorMemoryAllocation;
  }
  void* host = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  void* dev = ::mmap(nullptr, mapped, PROT_NONE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (host == MAP_FAILED || dev == MAP_FAILED) {
    if (host != MAP_FAILED) ::munmap(host, mapped);
    if (dev != MAP_FAILED) ::munmap(dev, mapped);
    return cudaErrorMemoryAllocation;
  }
  (*g_allocs)[reinterpret_cast<std::uintptr_t>(dev)] =
      Alloc{static_cast<char*>(dev), static_cast<char*>(host), bytes, mapped, tl_device};
  *ptr = dev;
  return cudaSuccess;
}

cudaError_t device_free(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  std::lock_guard<std::mutex> lock(g_mem_mu);
  const auto it = g_allocs->find(reinterpret_cast<std::uintptr_t>(ptr));
  if (it == g_allocs->end()) return cudaErrorInvalidValue;
  ::munmap(it->second.host, it->second.mapped);
  ::munmap(it->second.dev, it->second.mapped);
  g_allocs->erase(it);
  return cudaSuccess;
}

int current_device() {
  return tl_device;
}

long bus_id(int device) {
  return 0x18000 + 0x10000L * device;  // 0000:18:00.0, 0000:28:00.0, ... as nvidia-smi's bus ids look
}

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID", "PMI_RANK"}) {
    const long r = env_long(name, -1);
    if (r >= 0) return static_cast<int>(r);
  }
  return -1;
}

std::optional<Fault> fault_for(int rank) {
  const char* v = std::getenv("STANDIN_FAULT");
  if (v == nullptr || *v == '\0' || rank < 0) return std::nullopt;
  const std::string spec(v);
  const auto at = spec.find('@');
  if (at == std::string::npos) return std::nullopt;
  Fault f;
  f.kind = spec.substr(0, at);
  const auto colon = spec.find(':', at);
  f.rank =
      std::atoi(spec.substr(at + 1, colon == std::string::npos ? std::string::npos : colon - at - 1).c_str());
  f.op = colon == std::string::npos ? 0 : std::atol(spec.substr(colon + 1).c_str());
  if (f.rank != rank) return std::nullopt;
  return f;
}

}  // namespace standin

using namespace standin;

// ---------- the CUDA runtime API ----------

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return record(cudaErrorInvalidValue);
  *count = device_count();
  return *count == 0 ? record(cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (const cudaError_t e = check_device(device); e != cudaSuccess) return record(e);
  tl_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return record(cudaErrorInvalidValue);
  if (const cudaError_t e = check_device(device); e != cudaSuccess) return record(e);
  std::memset(prop, 0, sizeof *prop);
  const long sm = env_long("CUDA_STANDIN_SM", 90);
  std::snprintf(prop->name, sizeof prop->name, "CUDA stand-in sm_%ld (CPU)", sm);
  prop->major = static_cast<int>(sm / 10);
  prop->minor = static_cast<int>(sm % 10);
  prop->totalGlobalMem = device_total_bytes();
  prop->multiProcessorCount = 4;
  prop->pciDomainID = 0;
  prop->pciBusID = static_cast<int>(bus_id(device) >> 12);
  prop->pciDeviceID = 0;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (value == nullptr) return record(cudaErrorInvalidValue);
  if (const cudaError_t e = check_device(device); e != cudaSuccess) return record(e);
  const long sm = env_long("CUDA_STANDIN_SM", 90);
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor:
      *value = static_cast<int>(sm / 10);
      return cudaSuccess;
    case cudaDevAttrComputeCapabilityMinor:
      *value = static_cast<int>(sm % 10);
      return cudaSuccess;
    case cudaDevAttrMultiProcessorCount:
      *value = 4;
      return cudaSuccess;
    default:
      return record(cudaErrorInvalidValue);
  }
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return record(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
  const cudaError_t e = tl_last_error;
  tl_last_error = cudaSuccess;
  return e;
}

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
    case cudaErrorInvalidPtx:
      return "cudaErrorInvalidPtx";
    case cudaErrorSymbolNotFound:
      return "cudaErrorSymbolNotFound";
    case cudaErrorStreamCaptureUnsupported:
      return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated:
      return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorIllegalState:
      return "cudaErrorIllegalState";
    default:
      return "cudaErrorUnknown";
  }
}

const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorInvalidPtx:
      return "a PTX JIT compilation failed";
    case cudaErrorSymbolNotFound:
      return "named symbol not found";
    case cudaErrorStreamCaptureUnsupported:
      return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
      return "operation failed due to a previous error during capture";
    case cudaErrorIllegalState:
      return "the operation cannot be performed in the present state";
    default:
      return "unknown error";
  }
}

// ---------- memory ----------

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  return record(device_alloc(ptr, bytes));
}

cudaError_t cudaFree(void* ptr) {
  return record(device_free(ptr));
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(g_mem_mu);
  *total_bytes = device_total_bytes();
  *free_bytes = *total_bytes - device_used_bytes(tl_device);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* dev, int value, size_t bytes, cudaStream_t stream) {
  void* view = host_view(dev, bytes);
  if (view == nullptr) return record(cudaErrorInvalidValue);
  return record(enqueue(stream, [view, value, bytes] { std::memset(view, value, bytes); }));
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  void* dst_dev = host_view(dst, bytes);
  void* src_dev = host_view(src, bytes);
  if (kind == cudaMemcpyDefault) {
    kind = src_dev != nullptr ? (dst_dev != nullptr ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                              : (dst_dev != nullptr ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  }
  const bool src_is_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  const bool dst_is_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  if ((src_is_dev && src_dev == nullptr) || (dst_is_dev && dst_dev == nullptr))
    return record(cudaErrorInvalidValue);
  if (!src_is_dev) {
    // From pageable host memory: staged at the call, the device written when the stream gets there.
    auto staged = std::make_shared<std::vector<char>>(static_cast<const char*>(src),
                                                      static_cast<const char*>(src) + bytes);
    char* to = dst_is_dev ? static_cast<char*>(dst_dev) : static_cast<char*>(dst);
    return record(enqueue(stream, [staged, to] { std::memcpy(to, staged->data(), staged->size()); }));
  }
  char* to = dst_is_dev ? static_cast<char*>(dst_dev) : static_cast<char*>(dst);
  const char* from = static_cast<const char*>(src_dev);
  if (dst_is_dev) return record(enqueue(stream, [to, from, bytes] { std::memcpy(to, from, bytes); }));
  // To pageable host memory: returns once the copy completed (the stream's earlier work first).
  auto done = std::make_shared<std::pair<std::mutex, std::condition_variable>>();
  auto flag = std::make_shared<bool>(false);
  Stream* s = stream_of(stream);
  bool capturing = false;
  if (s != nullptr) {
    std::lock_guard<std::mutex> lock(s->mu);
    capturing = s->capture != nullptr;
  }
  const cudaError_t e = enqueue(stream, [to, from, bytes, done, flag] {
    std::memcpy(to, from, bytes);
    std::lock_guard<std::mutex> lock(done->first);
    *flag = true;
    done->second.notify_all();
  });
  if (e != cudaSuccess || capturing) return record(e);
  std::unique_lock<std::mutex> lock(done->first);
  done->second.wait(lock, [&] { return *flag; });
  return cudaSuccess;
}

// ---------- streams ----------

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int /*flags*/) {
  if (stream == nullptr) return record(cudaErrorInvalidValue);
  auto* s = new Stream();
  std::lock_guard<std::mutex> lock(g_streams_mu);
  g_streams->insert(s);
  *stream = reinterpret_cast<cudaStream_t>(s);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  Stream* s = stream_of(stream);
  if (s == nullptr || s == g_legacy) return record(cudaErrorInvalidResourceHandle);
  {
    std::lock_guard<std::mutex> lock(g_streams_mu);
    g_streams->erase(s);
  }
  // As CUDA: returns at once; the stream's remaining work completes, then its resources go.
  {
    std::lock_guard<std::mutex> lock(s->mu);
    s->stop = true;
    s->cv.notify_all();
  }
  s->worker.detach();
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  Stream* s = stream_of(stream);
  if (s == nullptr) return record(cudaErrorInvalidResourceHandle);
  {
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->capture != nullptr) return record(cudaErrorStreamCaptureUnsupported);
    if (s->idle()) return cudaSuccess;
  }
  // A caller polling this in a loop (nccl-tests and fabcheck do) must not starve the stream's worker when the
  // ranks outnumber the cores (a GPU needs no CPU to progress): a short sleep, not a yield, which a CPU-bound
  // neighbour process defeats (sweep.all.np4: 112 s beside `yes` with a yield).
  std::this_thread::sleep_for(std::chrono::microseconds(20));
  return cudaErrorNotReady;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  Stream* s = stream_of(stream);
  if (s == nullptr) return record(cudaErrorInvalidResourceHandle);
  {
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->capture != nullptr) return record(cudaErrorStreamCaptureUnsupported);
  }
  s->wait_idle();
  return cudaSuccess;
}

// ---------- graphs ----------

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode /*mode*/) {
  Stream* s = stream_of(stream);
  if (s == nullptr) return record(cudaErrorInvalidResourceHandle);
  if (s == g_legacy) return record(cudaErrorStreamCaptureUnsupported);  // the legacy stream cannot capture
  std::lock_guard<std::mutex> lock(s->mu);
  if (s->capture != nullptr) return record(cudaErrorIllegalState);
  s->capture = new Graph();
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  Stream* s = stream_of(stream);
  if (s == nullptr || graph == nullptr) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(s->mu);
  if (s->capture == nullptr) return record(cudaErrorIllegalState);
  {
    std::lock_guard<std::mutex> objs(g_objs_mu);
    g_graphs->insert(s->capture);
  }
  *graph = reinterpret_cast<cudaGraph_t>(s->capture);
  s->capture = nullptr;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long /*flags*/) {
  if (exec == nullptr) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(g_objs_mu);
  auto* g = reinterpret_cast<Graph*>(graph);
  if (g_graphs->count(g) == 0) return record(cudaErrorInvalidResourceHandle);
  auto* copy = new Graph(*g);
  g_graphs->insert(copy);
  *exec = reinterpret_cast<cudaGraphExec_t>(copy);
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  Graph* g = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_objs_mu);
    g = reinterpret_cast<Graph*>(exec);
    if (g_graphs->count(g) == 0) return record(cudaErrorInvalidResourceHandle);
  }
  for (const Task& t : g->nodes) {
    if (const cudaError_t e = enqueue(stream, t); e != cudaSuccess) return record(e);
  }
  return cudaSuccess;
}

static cudaError_t destroy_graph(void* p) {
  std::lock_guard<std::mutex> lock(g_objs_mu);
  auto* g = static_cast<Graph*>(p);
  if (g_graphs->erase(g) == 0) return record(cudaErrorInvalidResourceHandle);
  delete g;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  return destroy_graph(exec);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return destroy_graph(graph);
}

// ---------- events ----------

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  if (event == nullptr) return record(cudaErrorInvalidValue);
  auto* e = new Event();
  std::lock_guard<std::mutex> lock(g_objs_mu);
  g_events->insert(e);
  *event = reinterpret_cast<cudaEvent_t>(e);
  return cudaSuccess;
}

static Event* event_of(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(g_objs_mu);
  auto* e = reinterpret_cast<Event*>(event);
  return g_events->count(e) != 0 ? e : nullptr;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  Event* e = event_of(event);
  if (e == nullptr) return record(cudaErrorInvalidResourceHandle);
  std::lock_guard<std::mutex> lock(g_objs_mu);
  g_events->erase(e);  // the object stays: a recorded task may still reach it
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  Event* e = event_of(event);
  if (e == nullptr) return record(cudaErrorInvalidResourceHandle);
  {
    std::lock_guard<std::mutex> lock(e->mu);
    e->recorded = true;
    e->done = false;
  }
  return record(enqueue(stream, [e] {
    std::lock_guard<std::mutex> lock(e->mu);
    e->at = std::chrono::steady_clock::now();
    e->done = true;
  }));
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  Event* a = event_of(start);
  Event* b = event_of(end);
  if (ms == nullptr || a == nullptr || b == nullptr) return record(cudaErrorInvalidResourceHandle);
  std::scoped_lock lock(a->mu, b->mu);
  if (!a->recorded || !b->recorded) return record(cudaErrorInvalidResourceHandle);
  if (!a->done || !b->done) return record(cudaErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return cudaSuccess;
}

// ---------- libraries and kernels ----------

cudaError_t cudaLibraryLoadData(cudaLibrary_t* library, const void* code, cudaJitOption* /*jitOptions*/,
                                void** /*jitOptionsValues*/, unsigned int /*numJitOptions*/,
                                cudaLibraryOption* /*libraryOptions*/, void** /*libraryOptionValues*/,
                                unsigned int /*numLibraryOptions*/) {
  if (library == nullptr || code == nullptr) return record(cudaErrorInvalidValue);
  const std::string ptx(static_cast<const char*>(code));
  if (ptx.find(".version") == std::string::npos || ptx.find(".target") == std::string::npos)
    return record(cudaErrorInvalidPtx);
  auto* lib = new Library();
  for (std::size_t at = ptx.find(".entry"); at != std::string::npos; at = ptx.find(".entry", at + 6)) {
    std::size_t b = at + 6;
    while (b < ptx.size() && (ptx[b] == ' ' || ptx[b] == '\t')) ++b;
    std::size_t e = b;
    while (e < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[e])) || ptx[e] == '_')) ++e;
    if (e > b) lib->entries.insert(ptx.substr(b, e - b));
  }
  std::lock_guard<std::mutex> lock(g_objs_mu);
  g_libraries->insert(lib);
  *library = reinterpret_cast<cudaLibrary_t>(lib);
  return cudaSuccess;
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t* kernel, cudaLibrary_t library, const char* name) {
  if (kernel == nullptr || name == nullptr) return record(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(g_objs_mu);
  auto* lib = reinterpret_cast<Library*>(library);
  if (g_libraries->count(lib) == 0) return record(cudaErrorInvalidResourceHandle);
  if (lib->entries.count(name) == 0) return record(cudaErrorSymbolNotFound);
  auto* k = new Kernel{name};
  g_kernels->insert(k);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
  std::lock_guard<std::mutex> lock(g_objs_mu);
  auto* lib = reinterpret_cast<Library*>(library);
  if (g_libraries->erase(lib) == 0) return record(cudaErrorInvalidResourceHandle);
  delete lib;
  return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t /*sharedMem*/,
                             cudaStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(g_objs_mu);
    if (g_kernels->count(static_cast<Kernel*>(const_cast<void*>(func))) == 0)
      return record(cudaErrorInvalidResourceHandle);
  }
  if (grid.x * grid.y * grid.z == 0 || block.x * block.y * block.z == 0 || args == nullptr)
    return record(cudaErrorInvalidValue);
  unsigned long long units = 0;
  std::memcpy(&units, args[0], sizeof units);
  const long ns = env_long("CUDA_STANDIN_KERNEL_NS", 20);
  const auto busy = std::chrono::nanoseconds(static_cast<long long>(units) * ns);
  return record(enqueue(stream, [busy] { std::this_thread::sleep_for(busy); }));
}

}  // extern "C"
