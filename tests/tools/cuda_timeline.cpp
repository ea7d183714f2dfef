// Where a GPU program's wall time goes, without nsys (the GPU machine has ncu but not nsys): a
// CUPTI activity tracer loaded by the CUDA driver at start-up (CUDA_INJECTION64_PATH). At exit it
// prints the span from the first to the last GPU activity, how much of it kernels, copies and
// memsets took, the idle gaps between them by size (the largest with their neighbours), and the
// host time spent in each CUDA runtime call (cudaMalloc, cudaFree, cudaStreamSynchronize, ...).
// ncu times kernels one at a time and says nothing of the time between them; docs/emd.md
// ("Where the rest of a run goes") left ~14 ms of a 0.199 s ICEEMDAN run in no kernel.
//
// Build it on the GPU machine:
//   g++ -std=c++17 -O2 -shared -fPIC -I/usr/local/cuda/include tests/tools/cuda_timeline.cpp
//       -o /tmp/libcuda_timeline.so -L/usr/local/cuda/lib64 -lcupti
// and run a program under it (MODESCOPE_TIMELINE_OUT unset: the report goes to stderr;
// MODESCOPE_TIMELINE_LAUNCHES names a file for every activity in order, one line each: start and
// duration in us and the name, to see how one kernel's launches differ, e.g. by IMF):
//   CUDA_INJECTION64_PATH=/tmp/libcuda_timeline.so MODESCOPE_TIMELINE_OUT=out/timeline.txt
//       build-gpu/tests/bench/emd_bench --gpu-only --case 1,102401,500,10 --runs 1
// Run on an H200 (CUDA 13, driver 580) on 2026-11-30: docs/emd.md ("Seventh session") has what
// it showed.
#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Interval {
  std::uint64_t start, end;
  std::string what;  // kernel name, "memcpy <kind> <bytes>", "memset <bytes>"
};
struct HostCalls {
  std::uint64_t count = 0, ns = 0, longest = 0;
};

std::mutex lock;
std::vector<Interval> device;           // kernels, copies, memsets
std::map<std::string, HostCalls> host;  // runtime calls by name
std::uint64_t kernelNs = 0, copyNs = 0, setNs = 0;

constexpr std::size_t kBufferBytes = 16u << 20;

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxRecords) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *maxRecords = 0;  // as many as fit
}

std::string copyKind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    default:
      return "other";
  }
}

void CUPTIAPI bufferCompleted(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                              std::size_t valid) {
  std::lock_guard<std::mutex> guard(lock);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        device.push_back({k->start, k->end, k->name ? k->name : "?"});
        kernelNs += k->end - k->start;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        device.push_back(
            {m->start, m->end, "memcpy " + copyKind(m->copyKind) + " " + std::to_string(m->bytes)});
        copyNs += m->end - m->start;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        device.push_back({m->start, m->end, "memset " + std::to_string(m->bytes)});
        setNs += m->end - m->start;
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const char* name = nullptr;
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name);
        HostCalls& h = host[name ? name : "?"];
        const std::uint64_t ns = a->end - a->start;
        ++h.count;
        h.ns += ns;
        h.longest = std::max(h.longest, ns);
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

// A kernel's demangled name without its return type, namespaces and parameters.
std::string shortName(const std::string& what) {
  int status = 0;
  char* plain = abi::__cxa_demangle(what.c_str(), nullptr, nullptr, &status);
  std::string name = status == 0 && plain ? plain : what;
  std::free(plain);
  for (const std::string cut : {"(anonymous namespace)::", "void ", "modescope::"}) {
    for (std::size_t at; (at = name.find(cut)) != std::string::npos;) name.erase(at, cut.size());
  }
  return name.substr(0, name.find('('));
}

double ms(std::uint64_t ns) { return static_cast<double>(ns) / 1e6; }

void report() {
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> guard(lock);
  const char* path = std::getenv("MODESCOPE_TIMELINE_OUT");
  FILE* out = path ? std::fopen(path, "w") : stderr;
  if (!out) out = stderr;
  std::sort(device.begin(), device.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  if (device.empty()) {
    std::fprintf(out, "cuda_timeline: no GPU activity recorded\n");
  } else {
    // Busy time: the union of the device intervals (kernels of one stream do not overlap, but
    // copies on another stream may).
    std::uint64_t busy = 0, reach = device.front().start;
    struct Gap {
      std::uint64_t ns;
      std::size_t after;  // index of the activity the gap follows
    };
    std::vector<Gap> gaps;
    for (std::size_t i = 0; i < device.size(); ++i) {
      const Interval& d = device[i];
      if (d.start > reach && i > 0) gaps.push_back({d.start - reach, i - 1});
      if (d.end > reach) {
        busy += d.end - std::max(d.start, reach);
        reach = d.end;
      }
    }
    const std::uint64_t span = reach - device.front().start;
    std::fprintf(out, "span of GPU activity %.3f ms: busy %.3f ms, idle %.3f ms\n", ms(span),
                 ms(busy), ms(span - busy));
    std::fprintf(out, "  kernels %.3f ms, copies %.3f ms, memsets %.3f ms, %zu activities\n",
                 ms(kernelNs), ms(copyNs), ms(setNs), device.size());
    const std::uint64_t edges[] = {2000, 10000, 100000, 1000000, UINT64_MAX};
    const char* labels[] = {"< 2 us", "2-10 us", "10-100 us", "0.1-1 ms", ">= 1 ms"};
    std::uint64_t count[5] = {}, sum[5] = {};
    for (const Gap& g : gaps) {
      int b = 0;
      while (g.ns >= edges[b]) ++b;
      ++count[b];
      sum[b] += g.ns;
    }
    std::fprintf(out, "idle gaps by size:\n");
    for (int b = 0; b < 5; ++b)
      std::fprintf(out, "  %-10s %8llu gaps, %10.3f ms\n", labels[b],
                   static_cast<unsigned long long>(count[b]), ms(sum[b]));
    // Device time by kernel (copies and memsets by direction and size): which steps of a run
    // take the time, without ncu's replay of every launch (minutes on a 64-channel run).
    std::map<std::string, HostCalls> byName;
    for (const Interval& d : device) {
      HostCalls& k = byName[shortName(d.what)];
      ++k.count;
      k.ns += d.end - d.start;
      k.longest = std::max(k.longest, d.end - d.start);
    }
    std::vector<std::pair<std::string, HostCalls>> kernels(byName.begin(), byName.end());
    std::sort(kernels.begin(), kernels.end(),
              [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    std::fprintf(out, "device time by activity:\n");
    for (std::size_t i = 0; i < kernels.size() && i < 20; ++i)
      std::fprintf(out, "  %-60.60s %8llu, %10.3f ms, mean %.1f us, longest %.1f us\n",
                   kernels[i].first.c_str(),
                   static_cast<unsigned long long>(kernels[i].second.count),
                   ms(kernels[i].second.ns),
                   ms(kernels[i].second.ns) * 1e3 / static_cast<double>(kernels[i].second.count),
                   ms(kernels[i].second.longest) * 1e3);
    std::sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) { return a.ns > b.ns; });
    std::fprintf(out, "largest gaps (after -> before):\n");
    for (std::size_t i = 0; i < gaps.size() && i < 15; ++i)
      std::fprintf(out, "  %9.3f ms  %.60s -> %.60s\n", ms(gaps[i].ns),
                   device[gaps[i].after].what.c_str(), device[gaps[i].after + 1].what.c_str());
  }
  if (const char* launches = std::getenv("MODESCOPE_TIMELINE_LAUNCHES")) {
    if (FILE* list = std::fopen(launches, "w")) {
      const std::uint64_t origin = device.empty() ? 0 : device.front().start;
      for (const Interval& d : device)
        std::fprintf(list, "%.1f %.1f %s\n", static_cast<double>(d.start - origin) / 1e3,
                     static_cast<double>(d.end - d.start) / 1e3, shortName(d.what).c_str());
      std::fclose(list);
    } else {
      std::fprintf(out, "MODESCOPE_TIMELINE_LAUNCHES: cannot write %s; no launch list\n", launches);
    }
  }
  std::vector<std::pair<std::string, HostCalls>> calls(host.begin(), host.end());
  std::sort(calls.begin(), calls.end(),
            [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  std::fprintf(out, "host time in CUDA runtime calls:\n");
  for (std::size_t i = 0; i < calls.size() && i < 20; ++i)
    std::fprintf(out, "  %-36s %8llu calls, %10.3f ms, longest %.3f ms\n", calls[i].first.c_str(),
                 static_cast<unsigned long long>(calls[i].second.count), ms(calls[i].second.ns),
                 ms(calls[i].second.longest));
  if (out != stderr) std::fclose(out);
}

}  // namespace

// Called by the CUDA driver when CUDA_INJECTION64_PATH names this library.
extern "C" int InitializeInjection() {
  if (cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted) != CUPTI_SUCCESS) return 0;
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME})
    cuptiActivityEnable(kind);
  std::atexit(report);
  return 1;
}
