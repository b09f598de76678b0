// The persistent thread pool: lazily started workers, one parallel region at a time, ranges
// claimed through one atomic word that also names the region, so a late worker never touches
// the next region's work.
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "cvm/check.h"
#include "cvm/threads.h"

namespace cvm {
namespace threads {
namespace {

constexpr int64_t kDefaultMinTaskWork = 32768;
// How long an idle worker spins for the next region before it sleeps.
constexpr std::chrono::microseconds kSpin{100};

int hardware_threads() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  return 1;  // a wasm build without pthreads runs every region on the caller
#endif
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(std::min<unsigned>(h, kMaxThreads));
}

// CVMRT_THREADS as read at first use: value 0 when unset or empty, -1 when malformed.
struct EnvThreads {
  int value = 0;
  std::string text;
};

const EnvThreads& env_threads() {
  static const EnvThreads env = [] {
    EnvThreads e;
    const char* s = std::getenv("CVMRT_THREADS");
    e.value = parse_thread_count(s);
    if (s != nullptr) e.text = s;
    return e;
  }();
  return env;
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// True on pool workers, and on a caller while it runs its share of a region: a region started
// there runs serially.
thread_local bool t_in_region = false;

// True on a thread while a SerialScope lives there.
thread_local bool t_serial = false;

class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool();  // never destroyed: kernels may run during exit
    return *pool;
  }

  int threads() {
    int n = configured_.load(std::memory_order_acquire);
    if (n == 0) {
      const EnvThreads& env = env_threads();
      VERIFY(env.value >= 0) << "CVMRT_THREADS=\"" << env.text << "\": expected an integer in [1, "
                             << kMaxThreads << "]";
      n = env.value > 0 ? env.value : hardware_threads();
    }
    resolved_.store(n, std::memory_order_release);
    return n;
  }

  CountSource source() {
    if (configured_.load(std::memory_order_acquire) > 0) return CountSource::kApi;
    return env_threads().value != 0 ? CountSource::kEnv : CountSource::kDefault;
  }

  void set_threads(int n) {
    VERIFY(n >= 0 && n <= kMaxThreads) << "set_num_threads: expected 0 (default) or a count in [1, "
                                       << kMaxThreads << "], found " << n;
    std::lock_guard<std::mutex> region(region_mu_);  // waits for a region in flight
    configured_.store(n, std::memory_order_release);
    if (n > 0) resolved_.store(n, std::memory_order_release);
  }

  std::atomic<int64_t>& min_task_work() { return min_task_work_; }

  void run(int64_t n, kernel::ParallelBody body, void* user) noexcept {
    if (n <= 0) return;
    const int threads = resolved_.load(std::memory_order_acquire);
    if (n < 2 || threads < 2 || t_in_region || !region_mu_.try_lock()) {
      body(user, 0, n);
      return;
    }
    // The pool keeps its size whatever n is: resizing joins and starts threads.
    const int parts = static_cast<int>(std::min<int64_t>(n, ensure_workers(threads) + 1));
    if (parts < 2) {
      region_mu_.unlock();
      body(user, 0, n);
      return;
    }
    uint64_t region;
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = {body, user, n, parts};
      region = generation_.load(std::memory_order_relaxed) + 1;
      generation_.store(region, std::memory_order_release);
      pending_.store(parts, std::memory_order_relaxed);
      claim_.store(region << 32, std::memory_order_release);
    }
    wake_.notify_all();
    t_in_region = true;
    work(job_, region);
    t_in_region = false;
    // The other parts are about as long as ours: spin briefly before sleeping.
    for (int spin = 0; spin < 4000 && pending_.load(std::memory_order_acquire) != 0; ++spin) {
      cpu_relax();
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      done_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    region_mu_.unlock();
  }

 private:
  struct Job {
    kernel::ParallelBody body;
    void* user;
    int64_t n;
    int parts;
  };

  Pool() = default;

  // Range `part` of `parts` near-equal contiguous ranges of [0, n).
  static int64_t bound(const Job& job, int64_t part) {
    const int64_t q = job.n / job.parts, r = job.n % job.parts;
    return q * part + std::min(part, r);
  }

  // Claims and runs parts of region `region` until none is left. A claim is the word
  // (region << 32 | next part): it fails once the region is over or another has begun.
  void work(const Job& job, uint64_t region) {
    uint64_t w = claim_.load(std::memory_order_acquire);
    for (;;) {
      if ((w >> 32) != region || static_cast<int64_t>(w & 0xffffffffu) >= job.parts) return;
      if (!claim_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel)) continue;
      const int64_t part = static_cast<int64_t>(w & 0xffffffffu);
      job.body(job.user, bound(job, part), bound(job, part + 1));
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mu_);
        done_.notify_all();
      }
      w = claim_.load(std::memory_order_acquire);
    }
  }

  void worker_loop() {
    t_in_region = true;
    uint64_t seen = 0;
    for (;;) {
      // Kernels of one model run come back to back: spin a little before sleeping, since a
      // wake-up through the condition variable costs tens of microseconds.
      const auto spin_until = std::chrono::steady_clock::now() + kSpin;
      for (int i = 0; generation_.load(std::memory_order_acquire) == seen &&
                      !stop_.load(std::memory_order_acquire);
           ++i) {
        cpu_relax();
        if ((i & 63) == 63 && std::chrono::steady_clock::now() > spin_until) break;
      }
      Job job;
      uint64_t region;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] {
          return stop_.load(std::memory_order_relaxed) ||
                 generation_.load(std::memory_order_relaxed) != seen;
        });
        if (stop_.load(std::memory_order_relaxed)) return;
        seen = region = generation_.load(std::memory_order_relaxed);
        job = job_;
      }
      work(job, region);
    }
  }

  // Makes the pool hold `threads - 1` workers (called with region_mu_ held); returns how many
  // it holds, fewer when the system refuses new threads.
  int64_t ensure_workers(int64_t threads) {
    const size_t want = static_cast<size_t>(threads - 1);
    if (workers_.size() == want) return static_cast<int64_t>(want);
    if (workers_.size() > want) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stop_.store(true, std::memory_order_release);
      }
      wake_.notify_all();
      for (std::thread& t : workers_) t.join();
      workers_.clear();
      std::lock_guard<std::mutex> lock(mu_);
      stop_.store(false, std::memory_order_release);
    }
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    return 0;  // a wasm build without pthreads runs everything on the caller
#endif
    try {
      workers_.reserve(want);
      while (workers_.size() < want) workers_.emplace_back([this] { worker_loop(); });
    } catch (const std::exception&) {
      // Fewer threads only means less parallelism.
    }
    return static_cast<int64_t>(workers_.size());
  }

  std::mutex region_mu_;  // held by the caller of the region in flight
  std::mutex mu_;         // guards job_, and writes of generation_ and stop_ (read spinning too)
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  Job job_{};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> claim_{0};
  std::atomic<int64_t> pending_{0};
  std::atomic<int> configured_{0};  // 0: the default
  std::atomic<int> resolved_{1};    // the count last resolved by threads()
  std::atomic<int64_t> min_task_work_{kDefaultMinTaskWork};
};

void run_parallel(void* ctx, int64_t n, kernel::ParallelBody body, void* user) {
  static_cast<Pool*>(ctx)->run(n, body, user);
}

}  // namespace

int parse_thread_count(const char* text) {
  if (text == nullptr || *text == '\0') return 0;
  if (*text < '0' || *text > '9') return -1;  // strtol would accept spaces and signs
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 1 || v > kMaxThreads) return -1;
  return static_cast<int>(v);
}

int num_threads() { return Pool::get().threads(); }

CountSource count_source() { return Pool::get().source(); }

void parallel_for(int64_t n, kernel::ParallelBody body, void* user) {
  Pool& pool = Pool::get();
  pool.threads();
  pool.run(n, body, user);
}

kernel::ParallelFor kernel_parallel_for() {
  Pool& pool = Pool::get();
  kernel::ParallelFor pf{};
  pf.run = run_parallel;
  pf.ctx = &pool;
  pf.num_threads = t_serial ? 1 : pool.threads();
  pf.min_task_work = min_task_work();
  return pf;
}

SerialScope::SerialScope() : was_serial_(t_serial) { t_serial = true; }

SerialScope::~SerialScope() { t_serial = was_serial_; }

void set_min_task_work(int64_t work) {
  Pool::get().min_task_work().store(work < 1 ? 1 : work, std::memory_order_relaxed);
}

int64_t min_task_work() { return Pool::get().min_task_work().load(std::memory_order_relaxed); }

}  // namespace threads

void set_num_threads(int n) { threads::Pool::get().set_threads(n); }

int num_threads() { return threads::num_threads(); }

}  // namespace cvm
