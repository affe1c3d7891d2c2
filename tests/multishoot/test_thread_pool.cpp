#include <atomic>
#include <functional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "thread_pool.hpp"

using esdirk::multishoot::ThreadPool;

BOOST_AUTO_TEST_SUITE(thread_pool)

BOOST_AUTO_TEST_CASE(every_task_runs_exactly_once_in_every_batch) {
  ThreadPool pool(3);
  BOOST_TEST(pool.size() == 3);
  for (int batch = 0; batch < 50; ++batch) {
    const int n = 1 + batch % 17;
    std::vector<std::atomic<int>> count(static_cast<std::size_t>(n));
    std::atomic<int> bad_worker{0};
    pool.run(n, [&](int task, int worker) {
      ++count[static_cast<std::size_t>(task)];
      if (worker < 0 || worker >= 3) ++bad_worker;
    });
    for (int i = 0; i < n; ++i) BOOST_TEST(count[static_cast<std::size_t>(i)].load() == 1);
    BOOST_TEST(bad_worker.load() == 0);
  }
}

BOOST_AUTO_TEST_CASE(a_pool_of_one_runs_the_tasks_in_order_on_the_caller) {
  ThreadPool pool(1);
  std::vector<int> order;
  const auto caller = std::this_thread::get_id();
  bool same_thread = true;
  pool.run(5, [&](int task, int worker) {
    order.push_back(task);
    same_thread = same_thread && worker == 0 && std::this_thread::get_id() == caller;
  });
  BOOST_TEST(order == std::vector<int>({0, 1, 2, 3, 4}), boost::test_tools::per_element());
  BOOST_TEST(same_thread);
}

BOOST_AUTO_TEST_CASE(a_throwing_task_is_rethrown_after_the_others_finished) {
  ThreadPool pool(2);
  std::atomic<int> done{0};
  BOOST_CHECK_THROW(pool.run(8,
                             [&](int task, int) {
                               if (task == 3) throw std::runtime_error("task 3");
                               ++done;
                             }),
                    std::runtime_error);
  BOOST_TEST(done.load() == 7);
  pool.run(4, [&](int, int) { ++done; });  // still usable
  BOOST_TEST(done.load() == 11);
}

BOOST_AUTO_TEST_CASE(zero_threads_is_rejected) {
  BOOST_CHECK_THROW(ThreadPool(0), std::invalid_argument);
}

// Issue 27: under `ulimit -v` the constructor threw after ~105 of 10000 threads and the
// unwinding hung in pthread_cond_destroy on the workers already waiting. A refused start now
// leaves a smaller pool that runs every task.
BOOST_AUTO_TEST_CASE(a_refused_thread_start_leaves_a_smaller_pool_that_works) {
  for (const int allowed : {0, 1, 3}) {
    int started = 0;
    const ThreadPool::Starter start = [&](std::function<void()> work) {
      if (started == allowed)
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                "injected: no more threads");
      ++started;
      return std::thread(std::move(work));
    };
    ThreadPool pool(8, start);
    BOOST_TEST(pool.size() == allowed + 1);
    for (int batch = 0; batch < 20; ++batch) {
      std::vector<std::atomic<int>> count(13);
      pool.run(13, [&](int task, int worker) {
        if (worker >= 0 && worker <= allowed) ++count[static_cast<std::size_t>(task)];
      });
      for (const auto& c : count) BOOST_TEST(c.load() == 1);
    }
  }  // the destructor joins the started workers: no hang
}

BOOST_AUTO_TEST_SUITE_END()
