// leveldb_bench - a small db_bench-like driver for the system LevelDB.
//
// LevelDB guards its memtable, version set and background compaction with
// std::mutex / std::condition_variable, i.e. pthread_mutex_* and
// pthread_cond_*.  It is linked against the shared libleveldb so that, run
// under LD_PRELOAD=liblockswap.so, those calls bind to the interposer.
// See docs/bench.md for the flags and the output fields.
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/options.h>

#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Config {
    std::vector<std::string> benchmarks{"fillseq", "fillrandom", "readrandom", "readwhilewriting"};
    int threads = 1;
    long num = 100000;
    long reads = -1;         // per reader thread; -1 means num / threads
    long value_size = 100;
    long cache_mb = 8;
    std::string db;          // empty: a temporary directory, removed at exit
    bool json = false;
    double seconds = 0;      // > 0: read workloads run this long instead of counting
} cfg;

leveldb::DB* db = nullptr;
leveldb::Cache* cache = nullptr;
std::string db_path;
bool db_is_temp = false;
bool db_filled = false;
std::string value_pool;      // values are slices of this, see make_value_pool

void cleanup() {
    delete db;
    db = nullptr;
    if (db_is_temp && !db_path.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(db_path, ec);
        db_path.clear();
    }
    delete cache;
    cache = nullptr;
}

[[noreturn]] void fail(int code, const char* fmt, ...) {
    std::fputs("leveldb_bench: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
    cleanup();
    std::exit(code);
}

void check(const leveldb::Status& s, const char* what) {
    if (!s.ok())
        fail(1, "%s: %s", what, s.ToString().c_str());
}

// xorshift64*: per-thread, so key choice takes no shared state or lock.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ULL + 1) {}
    uint64_t next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545F4914F6CDD1DULL;
    }
};

// 16-byte keys, zero-padded decimal, as db_bench makes them.
struct Key {
    char buf[32];
    leveldb::Slice make(long k) {
        std::snprintf(buf, sizeof buf, "%016ld", k);
        return leveldb::Slice(buf, 16);
    }
};

// Values compress to about half, like db_bench's: each 100-byte run is 50
// random letters followed by the same 50 again.
void make_value_pool() {
    size_t n = (size_t)cfg.value_size + (1u << 20);
    value_pool.resize(n);
    Rng r(12345);
    for (size_t i = 0; i < n; i++)
        value_pool[i] = (i % 100) < 50 ? (char)('a' + r.next() % 26) : value_pool[i - 50];
}

leveldb::Slice value_at(uint64_t i) {
    size_t span = value_pool.size() - (size_t)cfg.value_size;
    return leveldb::Slice(value_pool.data() + (i * 97) % span, (size_t)cfg.value_size);
}

void open_db(bool fresh) {
    delete db;
    db = nullptr;
    leveldb::Options o;
    o.create_if_missing = true;
    o.block_cache = cache;
    if (fresh)
        check(leveldb::DestroyDB(db_path, o), "destroy db");
    check(leveldb::DB::Open(o, db_path, &db), "open db");
}

struct Result {
    std::string name;
    std::vector<uint64_t> ops;   // per measured thread
    double seconds = 0;
    long found = -1;             // -1: not a read workload
    int writers = 0;
};

// Runs body(i) on n threads released together; returns the wall time from
// release until the last one finishes.  Start-up is an atomic spin, not a
// lock, so the harness adds no lock traffic of its own.
template <class F>
double run_threads(int n, F body) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> ts;
    for (int i = 0; i < n; i++)
        ts.emplace_back([&, i] {
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire))
                std::this_thread::yield();
            body(i);
        });
    while (ready.load() < n)
        std::this_thread::yield();
    auto t0 = Clock::now();
    go.store(true, std::memory_order_release);
    for (auto& t : ts)
        t.join();
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Fills start from an empty DB.  fillseq is single-threaded (its keys are in
// order); fillrandom runs --threads writers, each putting num/threads random
// keys: concurrent writers meet in LevelDB's writer queue (DBImpl::Write, a
// mutex and a condvar per writer), its most lock-heavy path.
Result fill(const std::string& name, bool random) {
    open_db(true);
    int n = random ? cfg.threads : 1;
    long per_thread = std::max(1L, cfg.num / n);
    Result r{name, std::vector<uint64_t>((size_t)n, 0)};
    std::vector<leveldb::Status> status((size_t)n);
    r.seconds = run_threads(n, [&](int t) {
        Rng rng(7 + (uint64_t)t);
        Key key;
        leveldb::WriteOptions wo;
        leveldb::Status& st = status[(size_t)t];
        long i = 0;
        for (; i < per_thread && st.ok(); i++) {
            long k = random ? (long)(rng.next() % (uint64_t)cfg.num) : i;
            st = db->Put(wo, key.make(k), value_at((uint64_t)(t * per_thread + i)));
        }
        r.ops[(size_t)t] = (uint64_t)i;
    });
    for (auto& s : status)
        check(s, name.c_str());
    db_filled = true;
    return r;
}

// readrandom, and readwhilewriting when with_writer: one extra thread keeps
// overwriting random keys until the readers are done; only reads are counted.
Result read_random(const std::string& name, bool with_writer) {
    if (!db_filled) {
        // Silently: reads need data.  Then compact it all, so that the timed
        // reads never race the background compactions the fill left running
        // (they would take CPU and the DB mutex from the readers, and by
        // how much would depend on how fast the fill ran: under a slower
        // lock the reads started on a DB of another shape).
        fill("fillseq", false);
        db->CompactRange(nullptr, nullptr);
    }
    int n = cfg.threads;
    long per_thread = cfg.reads > 0 ? cfg.reads : std::max(1L, cfg.num / n);
    Result r{name, std::vector<uint64_t>((size_t)n, 0)};
    r.writers = with_writer ? 1 : 0;
    std::vector<long> found((size_t)n, 0);
    std::vector<leveldb::Status> status((size_t)n + 1);
    std::atomic<int> readers_left{n};

    r.seconds = run_threads(n + r.writers, [&](int i) {
        Key key;
        if (i == n) {                    // the writer
            Rng rng(1000003);
            leveldb::WriteOptions wo;
            for (uint64_t w = 0; readers_left.load(std::memory_order_relaxed) > 0; w++) {
                status[i] = db->Put(wo, key.make((long)(rng.next() % (uint64_t)cfg.num)), value_at(w));
                if (!status[i].ok())
                    break;
            }
            return;
        }
        Rng rng((uint64_t)i + 1);
        leveldb::ReadOptions ro;
        std::string v;
        auto end = Clock::now() + std::chrono::duration<double>(cfg.seconds);
        // Counted here and stored once at the end: the readers' counters
        // share one cache line, and a store per read would move that line
        // between CPUs on every read (false sharing that costs the
        // benchmark, not the lock, and by how much depends on where the
        // allocator put the vector).
        uint64_t ops = 0;
        long found_here = 0;
        for (;;) {
            if (cfg.seconds > 0) {
                if ((ops & 63) == 0 && Clock::now() >= end)  // clock read amortised
                    break;
            } else if ((long)ops >= per_thread) {
                break;
            }
            leveldb::Status s = db->Get(ro, key.make((long)(rng.next() % (uint64_t)cfg.num)), &v);
            if (s.ok())
                found_here++;
            else if (!s.IsNotFound()) {
                status[(size_t)i] = s;
                break;
            }
            ops++;
        }
        r.ops[(size_t)i] = ops;
        found[(size_t)i] = found_here;
        readers_left.fetch_sub(1);
    });
    for (auto& s : status)
        check(s, name.c_str());
    r.found = 0;
    for (long f : found)
        r.found += f;
    return r;
}

void report(const Result& r) {
    uint64_t total = 0;
    double sumsq = 0;
    for (uint64_t o : r.ops) {
        total += o;
        sumsq += (double)o * (double)o;
    }
    size_t n = r.ops.size();
    double fair = (double)total / (double)n, min_share = 0, max_share = 0, jain = 0;
    if (total > 0) {
        min_share = 1e300;
        for (uint64_t o : r.ops) {
            min_share = std::min(min_share, (double)o / fair);
            max_share = std::max(max_share, (double)o / fair);
        }
        jain = (double)total * (double)total / ((double)n * sumsq);
    }
    double secs = r.seconds > 0 ? r.seconds : 1e-9;
    double ops_per_sec = (double)total / secs;
    double us_per_op = total ? secs * 1e6 / (double)total : 0;

    if (cfg.json) {
        std::printf("{\"bench\":\"leveldb\",\"workload\":\"%s\",\"threads\":%zu,\"ops\":%llu,"
                    "\"seconds\":%.6f,\"ops_per_sec\":%.1f,\"micros_per_op\":%.4f,"
                    "\"min_share\":%.4f,\"max_share\":%.4f,\"jain\":%.4f,\"per_thread_ops\":[",
                    r.name.c_str(), n, (unsigned long long)total, r.seconds, ops_per_sec,
                    us_per_op, min_share, max_share, jain);
        for (size_t i = 0; i < n; i++)
            std::printf("%s%llu", i ? "," : "", (unsigned long long)r.ops[i]);
        if (r.found >= 0)
            std::printf("],\"found\":%ld}\n", r.found);
        else
            std::printf("],\"found\":null}\n");
    } else {
        std::printf("%-12s :%12.3f micros/op;%8.0f ops/s (%zu thread%s%s", r.name.c_str(),
                    us_per_op, ops_per_sec, n, n == 1 ? "" : "s", r.writers ? " + 1 writer" : "");
        if (r.found >= 0)
            std::printf(", %ld of %llu found", r.found, (unsigned long long)total);
        std::printf(")\n");
    }
    std::fflush(stdout);
}

// ---- arguments ----

long parse_long(const char* name, const char* s, long min, long max) {
    char* end;
    errno = 0;
    long v = std::strtol(s, &end, 10);
    if (errno || end == s || *end)
        fail(2, "--%s: not a whole number: '%s'", name, s);
    if (v < min || v > max)
        fail(2, "--%s must be between %ld and %ld, got %ld", name, min, max, v);
    return v;
}

bool known_workload(const std::string& b) {
    return b == "fillseq" || b == "fillrandom" || b == "readrandom" || b == "readwhilewriting";
}

void usage() {
    std::printf(
        "usage: leveldb_bench [options]   (run under LD_PRELOAD=liblockswap.so)\n"
        "  --benchmarks LIST  comma list of fillseq,fillrandom,readrandom,readwhilewriting\n"
        "                     run in order (default: all four); a read workload with\n"
        "                     no fill before it fills the DB and compacts it first\n"
        "  --threads N        reader threads for read workloads, writer threads for\n"
        "                     fillrandom (default 1; fillseq always uses 1)\n"
        "  --num N            keys (default 100000)\n"
        "  --reads N          reads per reader thread (default num / threads)\n"
        "  --value-size N     value bytes (default 100)\n"
        "  --cache-mb N       block cache MiB (default 8)\n"
        "  --db DIR           database directory, kept at exit (default: temporary\n"
        "                     directory under /dev/shm or /tmp, removed at exit)\n"
        "  --seconds S        read workloads run S seconds each instead of --reads\n"
        "  --json             one JSON object per workload\n"
        "  --help             this text\n");
}

void parse_args(int argc, char** argv) {
    enum { O_BENCH = 256, O_THREADS, O_NUM, O_READS, O_VSIZE, O_CACHE, O_DB, O_JSON, O_SECONDS };
    static const option lo[] = {
        {"benchmarks", required_argument, nullptr, O_BENCH},
        {"threads", required_argument, nullptr, O_THREADS},
        {"num", required_argument, nullptr, O_NUM},
        {"reads", required_argument, nullptr, O_READS},
        {"value-size", required_argument, nullptr, O_VSIZE},
        {"cache-mb", required_argument, nullptr, O_CACHE},
        {"db", required_argument, nullptr, O_DB},
        {"json", no_argument, nullptr, O_JSON},
        {"seconds", required_argument, nullptr, O_SECONDS},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", lo, nullptr)) != -1) {
        switch (c) {
        case O_BENCH: {
            cfg.benchmarks.clear();
            std::string list = optarg;
            size_t pos = 0;
            for (;;) {
                size_t comma = list.find(',', pos);
                std::string b = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
                if (!known_workload(b))
                    fail(2, "unknown benchmark '%s' (fillseq, fillrandom, readrandom, readwhilewriting)", b.c_str());
                cfg.benchmarks.push_back(b);
                if (comma == std::string::npos)
                    break;
                pos = comma + 1;
            }
            break;
        }
        case O_THREADS: cfg.threads = (int)parse_long("threads", optarg, 1, 1024); break;
        case O_NUM: cfg.num = parse_long("num", optarg, 1, 1L << 40); break;
        case O_READS: cfg.reads = parse_long("reads", optarg, 1, 1L << 40); break;
        case O_VSIZE: cfg.value_size = parse_long("value-size", optarg, 0, 1L << 24); break;
        case O_CACHE: cfg.cache_mb = parse_long("cache-mb", optarg, 0, 1L << 20); break;
        case O_DB:
            if (!*optarg)
                fail(2, "--db: empty directory name");
            cfg.db = optarg;
            break;
        case O_JSON: cfg.json = true; break;
        case O_SECONDS: {
            char* end;
            errno = 0;
            cfg.seconds = std::strtod(optarg, &end);
            if (errno || end == optarg || *end || !std::isfinite(cfg.seconds) || cfg.seconds <= 0)
                fail(2, "--seconds: not a positive number: '%s'", optarg);
            break;
        }
        case 'h':
            usage();
            std::exit(0);
        case ':':
            fail(2, "option '%s' needs an argument", argv[optind - 1]);
        default:
            if (optopt > 0 && optopt < 256)
                fail(2, "unknown option '-%c' (try --help)", optopt);
            fail(2, "unknown or malformed option '%s' (try --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        fail(2, "unexpected argument '%s'", argv[optind]);
}

// A fresh directory in RAM when possible, so the disk does not dominate.
void make_temp_dir() {
    for (const char* base : {"/dev/shm", "/tmp"}) {
        if (access(base, W_OK) != 0)
            continue;
        std::string tmpl = std::string(base) + "/leveldb_bench.XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (mkdtemp(buf.data())) {
            db_path = buf.data();
            db_is_temp = true;
            return;
        }
    }
    fail(1, "cannot create a temporary directory in /dev/shm or /tmp: %s", std::strerror(errno));
}

}  // namespace

int main(int argc, char** argv) {
    parse_args(argc, argv);
    if (cfg.db.empty())
        make_temp_dir();
    else
        db_path = cfg.db;
    cache = leveldb::NewLRUCache((size_t)cfg.cache_mb << 20);
    make_value_pool();
    for (const std::string& b : cfg.benchmarks) {
        if (b == "fillseq")
            report(fill(b, false));
        else if (b == "fillrandom")
            report(fill(b, true));
        else
            report(read_random(b, b == "readwhilewriting"));
    }
    cleanup();
    return 0;
}
