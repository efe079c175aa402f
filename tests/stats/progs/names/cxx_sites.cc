/*
 * cxx_sites.cc - locks taken through the C++ standard library's wrappers
 * in a templated class of the program, for the call sites of `lockswap
 * report` (tests/stats/cxx_sites.py): built at -O0 (the wrappers are real
 * calls, the lock call's return address lies in __gthread_mutex_lock) and
 * at -O2 (they are inlined into the user's function, itself inlined into
 * std::thread's machinery), the report must name store::Cache<...>::put
 * and its file:line here, not a frame of libstdc++'s headers.
 *
 *   stats_cxx_sites_O0 ROUNDS, stats_cxx_sites_O2 ROUNDS (mk/stats.mk)
 *
 * Two threads each take every lock ROUNDS times; before that, one
 * contended wait on the Cache's mutex is made certain (a holder keeps it
 * until the other thread sleeps in its lock call), so the profile has a
 * waiter stack through the wrappers; then the condvar is waited on exactly
 * once (signalled only when the waiter sleeps in its wait), so that its
 * wait time has one sample.  Prints "sum N".
 */
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include "../../../thread_state.h"

static std::atomic<bool> holding{false};
static std::atomic<long> waiter_tid{0};
static std::atomic<bool> awaiting{false};

// Until the thread that published its tid sleeps (2 s at most).
static void until_waiter_sleeps()
{
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
	while (std::chrono::steady_clock::now() < end &&
	       !(waiter_tid && thread_state((pid_t)waiter_tid.load()) == 'S'))
		std::this_thread::sleep_for(std::chrono::microseconds(200));
}

namespace store {

template <typename V> class Cache {
public:
	void put(long key, V value, bool linger = false)
	{
		std::lock_guard<std::mutex> hold(mu_); // site: put
		items_[key % 64] = value;
		if (linger) {
			holding = true;
			until_waiter_sleeps();
		}
	}
	V get(long key)
	{
		std::unique_lock<std::mutex> hold(mu_); // site: get
		auto it = items_.find(key % 64);
		return it == items_.end() ? V() : it->second;
	}
	long size()
	{
		std::shared_lock<std::shared_mutex> look(index_mu_); // site: size
		return index_;
	}
	void grow()
	{
		std::scoped_lock both(index_mu_); // site: grow
		index_ += 1;
	}
	void ready()
	{
		{
			std::lock_guard<std::mutex> hold(flag_mu_);
			flag_ = true;
		}
		flag_cv_.notify_all();
	}
	void await()
	{
		std::unique_lock<std::mutex> hold(flag_mu_); // site: await lock
		flag_cv_.wait(hold, [this] { return flag_; }); // site: await
	}

private:
	std::mutex mu_;
	std::map<long, V> items_;
	std::shared_mutex index_mu_;
	long index_ = 0;
	std::mutex flag_mu_;
	std::condition_variable flag_cv_;
	bool flag_ = false;
};

} // namespace store

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 0;
	if (rounds < 1) {
		std::fprintf(stderr, "usage: %s ROUNDS (ROUNDS >= 1)\n", argv[0]);
		return 2;
	}
	store::Cache<long> cache;
	std::thread holder([&] { cache.put(0, 0, true); });
	std::thread waiter([&] {
		while (!holding)
			std::this_thread::yield();
		waiter_tid = syscall(SYS_gettid);
		cache.put(1, 1); // blocks: the holder lingers in put
		awaiting = true;
		cache.await();
		for (long i = 0; i < rounds; i++) {
			cache.put(i, i);
			cache.grow();
		}
	});
	holder.join();
	while (!awaiting)
		std::this_thread::yield();
	until_waiter_sleeps(); // in the condvar's wait
	cache.ready();
	/* The reads wait for the writer's loop to end: mu_'s only contended
	 * waits are then the planned one in put, which names its site
	 * (reads racing the writes made get's waits the most frequent in
	 * about one run in ten under load). */
	waiter.join();
	long sum = 0;
	for (long i = 0; i < rounds; i++)
		sum += cache.get(i) + cache.size();
	std::printf("sum %ld\n", sum);
	return 0;
}
