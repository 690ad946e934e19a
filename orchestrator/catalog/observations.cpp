// The engine's memory as recorded observations, and write groups: the transaction in which the engine
// carries out one decision (its attempts' states, their events and the memory it changed); bulk
// writes, with the checkpoints of the write-ahead log held back until they end.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "catalog/catalog.hpp"
#include "catalog/impl.hpp"

namespace campaign {

void Catalog::record_observations(const std::vector<Observation>& changes) {
  if (changes.empty()) return;
  Impl& c = *impl_;
  c.require_writer("record_observations");
  c.guard("record_observations", [&] {
    Impl::Tx tx(c);
    auto q = c.query(
        "INSERT INTO observations (attempt_id, fact, held, since, value, time) VALUES (?, ?, ?, ?, ?, ?)");
    const std::int64_t now = c.now();
    for (const Observation& o : changes) {
      if (o.fact.empty()) throw CatalogError(c.where() + ": record_observations: empty fact");
      q->reset();
      q->bind(1, o.attempt_id);
      q->bind(2, o.fact);
      q->bind(3, o.held ? 1 : 0);
      bind_opt(*q, 4, o.since);
      q->bind(5, o.value);
      q->bind(6, now);
      q->exec();
    }
    tx.commit();
  });
}

std::vector<Observation> Catalog::observations(std::int64_t campaign_id) {
  Impl& c = *impl_;
  return c.guard("observations", [&] {
    auto q = c.query(
        "SELECT o.attempt_id, o.fact, o.held, o.since, o.value FROM observations o "
        "JOIN attempts a ON a.id = o.attempt_id JOIN cases k ON k.id = a.case_id "
        "WHERE k.campaign_id = ? ORDER BY o.id");
    q->bind(1, campaign_id);
    std::vector<Observation> out;
    while (q->executeStep()) {
      Observation o;
      o.attempt_id = q->getColumn(0).getInt64();
      o.fact = q->getColumn(1).getString();
      o.held = q->getColumn(2).getInt() != 0;
      o.since = opt_time(q->getColumn(3));
      o.value = q->getColumn(4).getString();
      out.push_back(std::move(o));
    }
    return out;
  });
}

Catalog::WriteGroup::WriteGroup(Catalog& catalog) : catalog_(catalog) {
  Impl& c = *catalog_.impl_;
  c.require_writer("write group");
  c.guard("begin a write group", [&] { c.begin_tx(); });
}

Catalog::WriteGroup::~WriteGroup() {
  if (!done_) catalog_.impl_->rollback_tx();
}

void Catalog::WriteGroup::commit() {
  Impl& c = *catalog_.impl_;
  c.guard("commit a write group", [&] { c.commit_tx(); });
  done_ = true;
}

// Checkpoints the log every kEvery on a connection of its own until it is destroyed.
struct Catalog::BulkWrites::Checkpointer {
  static constexpr std::chrono::milliseconds kEvery{50};
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  SQLite::Database db;
  std::thread thread;

  explicit Checkpointer(const std::string& path)
      : db(path, SQLite::OPEN_READWRITE), thread([this] { run(); }) {}
  ~Checkpointer() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    wake.notify_all();
    thread.join();
  }
  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!wake.wait_for(lock, kEvery, [this] { return stop; })) {
      lock.unlock();
      try {
        db.execAndGet("PRAGMA wal_checkpoint(PASSIVE)");
      } catch (const std::exception&) {
        // Busy, or the disk: the writer's end of the bulk checkpoints again, and reports.
      }
      lock.lock();
    }
  }
};

Catalog::BulkWrites::BulkWrites(Catalog& catalog) : catalog_(catalog) {
  Impl& c = *catalog_.impl_;
  c.require_writer("bulk writes");
  c.guard("bulk writes", [&] {
    pages_ = c.db.execAndGet("PRAGMA wal_autocheckpoint").getInt();
    cache_ = c.db.execAndGet("PRAGMA cache_size").getInt();
    c.db.exec("PRAGMA wal_autocheckpoint = 0");
    c.db.exec("PRAGMA cache_size = -32768");
    if (c.db.execAndGet("PRAGMA journal_mode").getString() == "wal") try {
        checkpointer_ = std::make_unique<Checkpointer>(c.path.string());
      } catch (const std::exception&) {
        // No second connection or thread to be had: the end checkpoints the whole log. Thrown on,
        // it would leave the catalog without its automatic checkpoints (no destructor to restore).
      }
  });
}

Catalog::BulkWrites::~BulkWrites() {
  Impl& c = *catalog_.impl_;
  checkpointer_.reset();
  try {
    c.db.exec("PRAGMA wal_autocheckpoint = " + std::to_string(pages_));
    c.db.exec("PRAGMA cache_size = " + std::to_string(cache_));
    if (c.tx_depth == 0) c.db.execAndGet("PRAGMA wal_checkpoint(PASSIVE)");
  } catch (const std::exception&) {
    // A checkpoint that fails now is made by a later commit, or when the catalog closes.
  }
}

}  // namespace campaign
