#pragma once
// A small fixed pool of threads that runs one batch of independent tasks at a time: the
// shooting intervals of one NLP iteration. The calling thread works too, so a pool of size 1
// has no extra thread and runs the tasks in order on the caller.
//
//     esdirk::multishoot::ThreadPool pool(2);
//     pool.run(n, [&](int task, int worker) { ... });   // returns when all n are done
//
// Tasks are handed out in increasing order from a shared counter (dynamic scheduling), so the
// thread that runs a task is not fixed; a caller that needs bit-identical results must make
// each task's result depend on the task alone (IntervalEvaluator keeps one interval object
// per task for that reason).
//
// Internal to the multishoot module (not installed, not exported): IntervalEvaluator owns one.

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace esdirk::multishoot {

class ThreadPool {
 public:
  using Task = std::function<void(int task, int worker)>;

  /// Starts one worker thread running `work`; throws std::system_error (as std::thread does)
  /// when the system refuses a thread. Replaceable so that tests can make a start fail.
  using Starter = std::function<std::thread(std::function<void()> work)>;

  /// A pool of up to `threads` workers (the caller plus threads - 1 started here). Throws
  /// std::invalid_argument unless threads >= 1. If the system refuses a thread (a process or
  /// memory limit: ulimit -u, ulimit -v, cgroups), the pool keeps the threads it has and works
  /// with fewer: size() says how many; a pool of one works on the caller alone.
  explicit ThreadPool(int threads) : ThreadPool(threads, Starter{}) {}
  /// The same with `start` instead of std::thread's constructor (empty: std::thread).
  ThreadPool(int threads, const Starter& start);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Number of workers running, the caller included (at most the threads asked for); worker
  /// ids are 0 .. size() - 1 (0 = the caller).
  int size() const { return static_cast<int>(threads_.size()) + 1; }

  /// Runs task(i, worker) for i = 0 .. tasks - 1 and returns when all have finished. If tasks
  /// throw, the remaining tasks still run and the first exception is rethrown here. Not
  /// reentrant: one batch at a time.
  void run(int tasks, const Task& task);

 private:
  void work(int worker);
  void drain(int worker);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const Task* task_ = nullptr;
  int tasks_ = 0;
  int next_ = 0;          // next task to hand out (under mutex_)
  int unfinished_ = 0;    // tasks of the batch not yet finished
  long generation_ = 0;   // batch counter: wakes the workers once per batch
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace esdirk::multishoot
