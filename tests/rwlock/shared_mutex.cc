// shared_mutex.cc - C++17 std::shared_mutex and std::shared_timed_mutex
// (libstdc++ calls pthread_rwlock_{rdlock,wrlock,unlock,clockrdlock,...}
// from inline code): readers share, writers exclude everyone, the timed
// forms time out against a holder in another thread.
#include <atomic>
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "rwcheck.h"

using namespace std::chrono_literals;

static void exclusion()
{
	std::shared_mutex m;
	std::atomic<int> readers{0}, writers{0}, violations{0}, overlaps{0};
	std::vector<std::thread> t;
	for (int id = 0; id < 4; id++)
		t.emplace_back([&, id] {
			for (int i = 0; i < 20000; i++) {
				if ((i + id) % 10 == 0) {
					std::unique_lock<std::shared_mutex> g(m);
					if (writers.fetch_add(1) != 0 || readers.load() != 0)
						violations++;
					writers--;
				} else {
					std::shared_lock<std::shared_mutex> g(m);
					if (readers.fetch_add(1) > 0)
						overlaps++;
					if (writers.load() != 0)
						violations++;
					readers--;
				}
			}
		});
	for (auto &x : t)
		x.join();
	CHECK_EQ(violations.load(), 0, "shared_mutex: no writer overlapped anyone");
	std::shared_lock<std::shared_mutex> a(m);
	bool other_read = false;
	std::thread([&] { other_read = m.try_lock_shared(); if (other_read) m.unlock_shared(); }).join();
	CHECK(other_read, "shared_mutex: a second reader shares the lock");
	bool other_write = true;
	std::thread([&] { other_write = m.try_lock(); if (other_write) m.unlock(); }).join();
	CHECK(!other_write, "shared_mutex: try_lock fails while read-locked");
}

static void timed()
{
	std::shared_timed_mutex m;
	m.lock();
	bool r1 = true, r2 = true, w1 = true, w2 = true;
	std::thread([&] {
		r1 = m.try_lock_shared_for(5ms);
		r2 = m.try_lock_shared_until(std::chrono::system_clock::now() + 5ms);
		w1 = m.try_lock_for(5ms);
		w2 = m.try_lock_until(std::chrono::steady_clock::now() + 5ms);
	}).join();
	CHECK(!r1 && !r2 && !w1 && !w2, "shared_timed_mutex: timed forms time out against a writer");
	m.unlock();
	std::thread([&] {
		r1 = m.try_lock_shared_for(5ms);
		if (r1)
			m.unlock_shared();
		w1 = m.try_lock_for(5ms);
		if (w1)
			m.unlock();
	}).join();
	CHECK(r1 && w1, "shared_timed_mutex: timed forms succeed once free");
}

int main()
{
	exclusion();
	timed();
	return rw_finish();
}
