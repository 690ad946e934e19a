// Implements collect/import.hpp.
#include "collect/import.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "render/catalog_rows.hpp"

namespace fs = std::filesystem;

namespace campaign::collect {

std::int64_t sync_campaign(Catalog& catalog, const matrix::Plan& plan, const fs::path& workdir,
                           const CodeRecord& code,
                           const std::function<std::string(const matrix::Case&)>& run_dir_of) {
  std::int64_t id = catalog.upsert_campaign(render::campaign_row(plan, workdir));
  catalog.record_code_version(id, code);
  auto rows = render::case_rows(plan, workdir, run_dir_of);
  catalog.sync_cases(id, rows);
  return id;
}

ImportSummary import_runs(Catalog& catalog, const matrix::Plan& plan, const fs::path& workdir,
                          const fs::path& from, const StepCollectors& collectors, const CodeRecord& code,
                          const std::string& output) {
  std::error_code ec;
  if (!fs::is_directory(from, ec)) throw Error("cannot import from " + from.string() + ": not a directory");
  // Run directories directly under `from`, or one level down (timestamped
  // result trees); the newest wins when a name appears more than once.
  std::map<std::string, fs::path> found;
  std::map<std::string, fs::file_time_type> when;
  std::set<std::string> wanted;
  for (auto& c : plan.cases) wanted.insert(c.name);
  auto consider = [&](const fs::path& dir) {
    std::string name = dir.filename().string();
    if (!wanted.count(name)) return false;
    auto t = fs::last_write_time(dir, ec);
    if (!found.count(name) || t > when[name]) found[name] = dir, when[name] = t;
    return true;
  };
  for (auto& e : fs::directory_iterator(from, ec)) {
    if (!e.is_directory(ec)) continue;
    if (consider(e.path())) continue;
    for (auto& sub : fs::directory_iterator(e.path(), ec))
      if (sub.is_directory(ec)) consider(sub.path());
  }
  std::int64_t id = sync_campaign(catalog, plan, workdir, code, [&](const matrix::Case& c) {
    auto it = found.find(c.name);
    return it != found.end() ? fs::absolute(it->second).string() : (workdir / c.name).string();
  });
  ImportSummary s;
  struct Todo {
    const AttemptRow* attempt;
    fs::path dir;
  };
  std::vector<Todo> todo;
  auto latest = catalog.latest_attempts(id);
  for (auto& a : latest) {
    auto it = found.find(a.case_name);
    if (it == found.end()) {
      ++s.absent;
      continue;
    }
    ++s.found;
    if (a.state != State::planned) {
      ++s.already;
      continue;
    }
    todo.push_back(Todo{&a, it->second});
  }
  // Collection reads and parses files, the catalog only writes: a batch is collected on every core
  // but one while the previous batch is committed (one transaction) on this thread. Batches bound
  // the memory: at most two batches' metrics are held at once.
  const size_t batch = 512;
  const size_t workers = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  static const std::vector<Collector> none;
  struct Batch {
    size_t first = 0;
    std::vector<Catalog::ImportedRun> runs;
    std::vector<CollectOutcome> outcomes;
  };
  auto collect_batch = [&](size_t first, size_t threads) {
    Batch b;
    b.first = first;
    size_t n = std::min(batch, todo.size() - first);
    b.runs.resize(n);
    b.outcomes.resize(n);
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) {
        const Todo& t = todo[first + i];
        auto cit = collectors.find(t.attempt->step);
        b.runs[i].attempt_id = t.attempt->id;
        b.runs[i].origin = fs::absolute(t.dir).string();
        b.outcomes[i] = collect_dir(t.dir, "", cit == collectors.end() ? none : cit->second,
                                    b.runs[i].metrics, {}, std::nullopt, output);
      }
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < threads; ++w) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return b;
  };
  auto commit = [&](Batch& b) {
    for (size_t i = 0; i < b.runs.size(); ++i) {
      if (b.outcomes[i].ok) {
        ++s.collected;
      } else {
        ++s.failed;
        b.runs[i].collect_error = b.outcomes[i].error;
        s.errors.push_back(todo[b.first + i].attempt->case_name + ": " + b.outcomes[i].error);
      }
    }
    catalog.import_runs(b.runs);
  };
  if (todo.empty()) return s;
  Batch current = collect_batch(0, workers);
  for (size_t next_first = batch;; next_first += batch) {
    std::future<Batch> next;
    if (next_first < todo.size())
      next = std::async(std::launch::async, collect_batch, next_first, std::max<size_t>(1, workers - 1));
    commit(current);
    if (!next.valid()) break;
    current = next.get();
  }
  return s;
}

}  // namespace campaign::collect
