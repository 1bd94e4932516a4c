// thread_pool: see thread_pool.hpp. Work is handed out by an atomic counter (dynamic scheduling),
// because MSM windows and NTT blocks differ in cost.
#include "thread_pool.hpp"

#include <algorithm>

namespace cuzk {

thread_pool& thread_pool::global() {
  static thread_pool pool(0);
  return pool;
}

thread_pool::thread_pool(size_t nthreads) { start(nthreads); }
thread_pool::~thread_pool() { stop(); }

void thread_pool::start(size_t nthreads) {
  if (nthreads == 0) nthreads = std::max<size_t>(1, std::thread::hardware_concurrency());
  stopping_ = false;
  for (size_t i = 1; i < nthreads; i++) workers_.emplace_back([this] { worker_loop(); });
}

void thread_pool::stop() {
  {
    std::lock_guard<std::mutex> lk(m_);
    stopping_ = true;
  }
  cv_work_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void thread_pool::resize(size_t nthreads) {
  std::lock_guard<std::mutex> region(region_);
  stop();
  start(nthreads);
}

// Set on threads running a region's work: a nested parallel_for then runs inline instead of
// deadlocking on region_.
static thread_local bool in_region = false;

void thread_pool::drain(const std::function<void(size_t)>* job, size_t n) {
  in_region = true;
  for (size_t i; (i = next_.fetch_add(1)) < n;) (*job)(i);
  in_region = false;
}

void thread_pool::worker_loop() {
  uint64_t seen = 0;
  const std::function<void(size_t)>* job = nullptr;
  size_t n = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(m_);
      cv_work_.wait(lk, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      // Take the job under the lock: a worker waking after its region ended must not run the next
      // region's indices against a stale (null) job pointer.
      job = job_;
      n = job_n_;
      if (!job) continue;
      active_++;
    }
    drain(job, n);
    {
      std::lock_guard<std::mutex> lk(m_);
      if (--active_ == 0) cv_done_.notify_all();
    }
  }
}

void thread_pool::parallel_for(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (n == 1 || workers_.empty() || in_region) {
    for (size_t i = 0; i < n; i++) fn(i);
    return;
  }
  std::lock_guard<std::mutex> region(region_);
  {
    std::lock_guard<std::mutex> lk(m_);
    job_ = &fn;
    job_n_ = n;
    next_ = 0;
    generation_++;
  }
  cv_work_.notify_all();
  drain(&fn, n);
  std::unique_lock<std::mutex> lk(m_);
  cv_done_.wait(lk, [&] { return active_ == 0 && next_ >= job_n_; });
  job_ = nullptr;
}

void thread_pool::parallel_range(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  grain = std::max<size_t>(1, grain);
  size_t chunks = std::min((n + grain - 1) / grain, size() * 4);
  size_t per = (n + chunks - 1) / chunks;
  parallel_for(chunks, [&](size_t c) {
    size_t b = c * per, e = std::min(n, b + per);
    if (b < e) fn(b, e);
  });
}

}  // namespace cuzk
