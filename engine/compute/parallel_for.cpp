#include "engine/compute/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace modescope {

void parallelFor(std::size_t items, int threads, const JobContext& ctx, const std::string& stage,
                 ProgressLabel label,
                 const std::function<std::function<void(std::size_t)>()>& makeWorker) {
  ctx.checkpoint();
  if (items == 0) return;
  const std::size_t workers =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), items);
  std::atomic<std::size_t> next{0}, done{0};
  std::atomic<bool> abort{false};
  std::size_t exited = 0;
  std::mutex m;
  std::condition_variable cv;
  std::exception_ptr error;
  auto body = [&] {
    try {
      auto perItem = makeWorker();
      while (!abort.load() && !ctx.stopRequested()) {
        const std::size_t i = next.fetch_add(1);
        if (i >= items) break;
        perItem(i);
        done.fetch_add(1);
      }
    } catch (...) {
      std::lock_guard lock(m);
      if (!error) error = std::current_exception();
      abort = true;
    }
    {
      std::lock_guard lock(m);
      ++exited;
    }
    cv.notify_one();
  };
  auto report = [&](std::size_t d) {
    ctx.progress(static_cast<double>(d) / static_cast<double>(items),
                 label == ProgressLabel::Stage
                     ? stage
                     : stage + " " + std::to_string(d) + "/" + std::to_string(items));
  };
  report(0);
  {
    std::vector<std::jthread> pool;
    pool.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(body);
    std::unique_lock lock(m);
    while (exited < workers) {
      cv.wait_for(lock, std::chrono::milliseconds(100));
      const std::size_t d = done.load();
      lock.unlock();
      report(d);
      lock.lock();
    }
  }  // joins
  if (error) std::rethrow_exception(error);
  ctx.checkpoint();
  report(items);
}

}  // namespace modescope
