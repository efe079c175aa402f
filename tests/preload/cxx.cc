// cxx.cc - the C++ standard library's locks on top of lockswap: std::mutex,
// std::recursive_mutex (static initializer, no init call),
// std::timed_mutex::try_lock_for (pthread_mutex_clocklock),
// try_lock_until(system_clock) (pthread_mutex_timedlock), and
// std::condition_variable wait / wait_for (pthread_cond_clockwait) /
// wait_until (steady: clockwait; system: timedwait).
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include <dlfcn.h>

using namespace std::chrono_literals;

static int passed, failed;

static void check(bool ok, const char *what)
{
	std::printf("%s - %s\n", ok ? "ok" : "FAIL", what);
	(ok ? passed : failed)++;
}

static const char *backend()
{
	auto fn = reinterpret_cast<const char *(*)()>(dlsym(RTLD_DEFAULT, "lockswap_backend"));
	return fn ? fn() : "none";
}

template <class M> static long contend(M &m, int threads, int iters)
{
	long counter = 0;
	std::vector<std::thread> ts;
	for (int t = 0; t < threads; t++)
		ts.emplace_back([&] {
			for (int i = 0; i < iters; i++) {
				std::lock_guard<M> g(m);
				long v = counter;
				counter = v + 1;
			}
		});
	for (auto &t : ts)
		t.join();
	return counter;
}

int main()
{
	std::printf("# cxx under backend %s\n", backend());
	std::mutex m;
	check(contend(m, 8, 8000) == 64000, "std::mutex: mutual exclusion");

	static std::recursive_mutex rm;
	check(contend(rm, 8, 8000) == 64000, "std::recursive_mutex: mutual exclusion");
	rm.lock();
	check(rm.try_lock(), "std::recursive_mutex: try_lock by owner");
	rm.unlock();
	rm.unlock();

	std::timed_mutex tm;
	tm.lock();
	std::atomic<int> r1{-1}, r2{-1};
	std::thread([&] { r1 = tm.try_lock_for(20ms); }).join();
	check(r1 == 0, "std::timed_mutex::try_lock_for on a held mutex -> false");
	std::thread([&] { r2 = tm.try_lock_until(std::chrono::system_clock::now() + 20ms); }).join();
	check(r2 == 0, "std::timed_mutex::try_lock_until(system_clock) on a held mutex -> false");
	tm.unlock();
	std::thread([&] { r1 = tm.try_lock_for(1s); if (r1) tm.unlock(); }).join();
	check(r1 == 1, "std::timed_mutex::try_lock_for on a free mutex -> true");
	check(contend(tm, 4, 10000) == 40000, "std::timed_mutex: mutual exclusion");

	std::condition_variable cv;
	std::mutex cm;
	bool ready = false;
	std::thread t([&] {
		std::this_thread::sleep_for(10ms);
		std::lock_guard<std::mutex> g(cm);
		ready = true;
		cv.notify_one();
	});
	{
		std::unique_lock<std::mutex> l(cm);
		cv.wait(l, [&] { return ready; });
		check(ready, "condition_variable::wait woken by notify_one");
	}
	t.join();
	{
		std::unique_lock<std::mutex> l(cm);
		auto t0 = std::chrono::steady_clock::now();
		bool got = cv.wait_for(l, 20ms, [] { return false; });
		check(!got && std::chrono::steady_clock::now() - t0 >= 19ms, "condition_variable::wait_for times out after its duration");
		got = cv.wait_until(l, std::chrono::steady_clock::now() + 10ms, [] { return false; });
		check(!got, "condition_variable::wait_until(steady_clock) times out");
		got = cv.wait_until(l, std::chrono::system_clock::now() + 10ms, [] { return false; });
		check(!got, "condition_variable::wait_until(system_clock) times out");
	}
	// wait_for woken long before its timeout.
	ready = false;
	std::thread t2([&] {
		std::this_thread::sleep_for(10ms);
		std::lock_guard<std::mutex> g(cm);
		ready = true;
		cv.notify_all();
	});
	{
		std::unique_lock<std::mutex> l(cm);
		bool got = cv.wait_for(l, 30s, [&] { return ready; });
		check(got, "condition_variable::wait_for woken by notify_all before its timeout");
	}
	t2.join();
	// notify_all with many waiters.
	int go = 0, done = 0;
	std::vector<std::thread> ws;
	for (int i = 0; i < 16; i++)
		ws.emplace_back([&] {
			std::unique_lock<std::mutex> l(cm);
			cv.wait(l, [&] { return go; });
			done++;
		});
	std::this_thread::sleep_for(20ms);
	{
		std::lock_guard<std::mutex> g(cm);
		go = 1;
	}
	cv.notify_all();
	for (auto &w : ws)
		w.join();
	check(done == 16, "condition_variable::notify_all wakes 16 waiters");
	std::condition_variable_any cva;
	std::unique_lock<std::mutex> l(cm);
	check(!cva.wait_for(l, 10ms, [] { return false; }), "condition_variable_any::wait_for times out");
	std::printf("# %d passed, %d failed (backend %s)\n", passed, failed, backend());
	return failed ? 1 : 0;
}
