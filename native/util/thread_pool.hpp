// A fixed pool of worker threads with a blocking parallel_for: the CPU core's only threading
// primitive. Calls from several threads at once are serialised (one parallel region at a time),
// which keeps concurrent proofs correct; the engine runs one native prove per pool.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk {

class thread_pool {
 public:
  static thread_pool& global();

  // Runs fn(i) for i in [0, n) on all workers plus the caller; returns when all are done.
  void parallel_for(size_t n, const std::function<void(size_t)>& fn);
  // Runs fn(chunk_begin, chunk_end) over [0, n) in chunks of at least |grain| items.
  void parallel_range(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

  size_t size() const { return workers_.size() + 1; }
  void resize(size_t nthreads);  // 0 = hardware concurrency; not during a parallel region
  ~thread_pool();

 private:
  explicit thread_pool(size_t nthreads);
  void start(size_t nthreads);
  void stop();
  void worker_loop();
  void drain(const std::function<void(size_t)>* job, size_t n);

  std::vector<std::thread> workers_;
  std::mutex region_;  // one parallel region at a time
  std::mutex m_;
  std::condition_variable cv_work_, cv_done_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t job_n_ = 0;
  std::atomic<size_t> next_{0};
  size_t active_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
};

}  // namespace cuzk
