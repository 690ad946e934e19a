// Implements collect/import.hpp.
#include "collect/import.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
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
  Catalog::BulkWrites bulk(catalog);  // one checkpoint of the log at the end, not one per 4 MB
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
  // but one while the previous batch is committed (one transaction) on this thread, which then
  // joins in collecting what is left of it (each run goes to whichever thread is free). Batches
  // bound the memory: at most two batches' metrics are held at once.
  const size_t batch = 512;
  const size_t workers = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  static const std::vector<Collector> none;
  struct Batch {
    size_t first = 0;
    size_t n = 0;
    std::vector<Catalog::ImportedRun> runs;
    std::vector<CollectOutcome> outcomes;
    std::atomic<size_t> next{0};
    std::vector<std::thread> helpers;
    void join() {
      for (auto& t : helpers) t.join();
      helpers.clear();
    }
    ~Batch() { join(); }
  };
  auto work = [&](Batch& b) {
    for (size_t i; (i = b.next.fetch_add(1)) < b.n;) {
      const Todo& t = todo[b.first + i];
      auto cit = collectors.find(t.attempt->step);
      b.runs[i].attempt_id = t.attempt->id;
      b.runs[i].origin = fs::absolute(t.dir).string();
      b.outcomes[i] = collect_series(t.dir, "", cit == collectors.end() ? none : cit->second,
                                     b.runs[i].series, {}, std::nullopt, output);
    }
  };
  auto start = [&](size_t first) {  // the helpers start on it at once
    auto b = std::make_unique<Batch>();
    b->first = first;
    b->n = std::min(batch, todo.size() - first);
    b->runs.resize(b->n);
    b->outcomes.resize(b->n);
    for (size_t w = 1; w < workers; ++w) b->helpers.emplace_back([&work, p = b.get()] { work(*p); });
    return b;
  };
  auto finish = [&](Batch& b) {  // this thread joins in, then waits for the helpers
    work(b);
    b.join();
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
  std::unique_ptr<Batch> current = start(0);
  finish(*current);
  for (size_t next_first = batch;; next_first += batch) {
    std::unique_ptr<Batch> next;
    if (next_first < todo.size()) next = start(next_first);
    commit(*current);
    current.reset();  // its metrics are written: freed before the next batch's are complete
    if (!next) break;
    finish(*next);
    current = std::move(next);
  }
  return s;
}

}  // namespace campaign::collect
