#include "thread_pool.hpp"

#include <stdexcept>
#include <new>
#include <string>
#include <system_error>

namespace esdirk::multishoot {

ThreadPool::ThreadPool(int threads, const Starter& start) {
  if (threads < 1)
    throw std::invalid_argument("ThreadPool: needs at least 1 thread, got " +
                                std::to_string(threads));
  // A refused thread start ends the starting: the pool works with the threads it has. Throwing
  // instead would leave the started workers waiting on the condition variables that the
  // unwinding destroys (a hang in pthread_cond_destroy), and fewer threads give the same
  // results (the tasks do not depend on the worker that runs them).
  try {
    threads_.reserve(static_cast<std::size_t>(threads - 1));
    for (int w = 1; w < threads; ++w) {
      std::function<void()> body = [this, w] { work(w); };
      threads_.push_back(start ? start(std::move(body)) : std::thread(std::move(body)));
    }
  } catch (const std::system_error&) {
  } catch (const std::bad_alloc&) {
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

// Takes tasks from the shared counter until none is left. The lock is held only to take a
// task and to count it done, never while a task runs.
void ThreadPool::drain(int worker) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (next_ < tasks_) {
    const int i = next_++;
    const Task* task = task_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*task)(i, worker);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    if (--unfinished_ == 0) done_.notify_all();
  }
}

void ThreadPool::work(int worker) {
  long seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    drain(worker);
  }
}

void ThreadPool::run(int tasks, const Task& task) {
  if (tasks <= 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    tasks_ = tasks;
    next_ = 0;
    unfinished_ = tasks;
    error_ = nullptr;
    ++generation_;
  }
  start_.notify_all();
  drain(0);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return unfinished_ == 0; });
    task_ = nullptr;
    tasks_ = 0;
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace esdirk::multishoot
