// The job geometry of a case: its partition, ranks, nodes, ranks per node,
// cpus and GPUs per rank, and walltime, each checked against the partition.
//
// Invariant: a case that leaves here fits its partition (cores, GPUs, memory and
// nodes as resource::fit decides; walltime limit), and its geometry is visible to later templates as the
// `ranks`, `nodes`... parameters.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "matrix/step_expander.hpp"
#include "util/strings.hpp"
#include "util/walltime.hpp"

namespace campaign::matrix {

resource::Demand Case::demand(bool one_host, long node_cores) const {
  resource::Demand d;
  d.nodes = one_host ? 1 : job_nodes();
  const long ranks_here = one_host ? job_ranks() : ranks_per_node;
  d.cores = ranks_here * cpus_per_rank;
  if (oversubscribe && node_cores > 0) d.cores = std::min(d.cores, node_cores);
  d.gpus = resource::gpus_of_ranks(gpus_per_rank, ranks_here);
  d.memory_mb = one_host ? memory_mb * job_nodes() : memory_mb;
  d.exclusive = exclusive;
  return d;
}

resource::Demand Plan::demand_of(const Case& c) const {
  return c.demand(system.one_host(), partition_of(c).cores_per_node);
}

double Plan::node_hours_of(const Case& c, long walltime_s) const {
  const resource::Demand d = demand_of(c);
  return static_cast<double>(d.nodes) * resource::fit(spec::node_of(partition_of(c)), d).share *
         static_cast<double>(walltime_s > 0 ? walltime_s : c.walltime_s) / 3600.0;
}

namespace {

struct Counts {
  std::optional<double> ranks, nodes, per_node;
};

// Any two of ranks, nodes and ranks per node give the third; one alone is
// spread one rank per node (or all on one node for ranks per node); none is 1.
void complete(Counts& n) {
  auto& [R, N, P] = n;
  if (R && P && !N)
    N = std::ceil(*R / *P);
  else if (N && P && !R)
    R = *N * *P;
  else if (R && N && !P)
    P = std::ceil(*R / *N);
  else if (R && !N && !P)
    P = 1, N = *R;
  else if (N && !R && !P)
    P = 1, R = *N;
  else if (P && !R && !N)
    N = 1, R = *P;
  else if (!R && !N && !P)
    R = N = P = 1;
}

}  // namespace

void StepExpander::compile_geometry() {
  const Schema& sc = *schema_;
  auto number = [&](const spec::Field<std::string>& f, const char* name, NumberField& out) {
    out.key = prefix_ + "job." + name;
    out.where = f ? f.where : step_.where;
    if (f) {
      const std::string text = trim(*f);
      out.says_zero = text == "0";
      if (int i = sc.find(text); i >= 0 && static_cast<size_t>(i) < user_names_) out.bare = i;
      out.expr.emplace(*f, visible(user_names_), nums_.data(), f.where, out.key);
    } else {
      int i = sc.find(name);
      if (i >= 0 && static_cast<size_t>(i) < user_names_) out.param = i;
    }
  };
  const auto& job = sp_.job;
  number(job.ranks, "ranks", ranks_);
  number(job.nodes, "nodes", nodes_);
  number(job.ranks_per_node, "ranks_per_node", rpn_);
  number(job.cpus_per_rank, "cpus_per_rank", cpr_);
  number(job.gpus_per_rank, "gpus_per_rank", gpr_);
  number(job.instances, "instances", instances_);
  // Templates see every name, the job's geometry included.
  if (job.partition)
    partition_ = TextTemplate(*job.partition, sc, job.partition.where, prefix_ + "job.partition");
  else if (sc.find("partition") >= 0 && static_cast<size_t>(sc.find("partition")) < user_names_)
    partition_ = TextTemplate("{{partition}}", sc, step_.where, prefix_ + "job.partition");
  if (job.walltime) walltime_ = TextTemplate(*job.walltime, sc, job.walltime.where, prefix_ + "job.walltime");
  if (job.memory) memory_ = TextTemplate(*job.memory, sc, job.memory.where, prefix_ + "job.memory");
  if (job.exclusive)
    exclusive_ = TextTemplate(*job.exclusive, sc, job.exclusive.where, prefix_ + "job.exclusive");
}

long StepExpander::integer(double v, const NumberField& f, const std::string& case_desc) const {
  if (!std::isfinite(v) || v != std::floor(v) || v < 0)
    throw InputError(f.where, f.key, "must be a whole number, got " + format_number(v) + case_desc);
  return static_cast<long>(v);
}

std::optional<double> StepExpander::number_of(const NumberField& f, const Values& values,
                                              const std::string& case_desc) const {
  if (f.expr) {
    check_numeric(*f.expr, values, case_desc);
    return f.expr->eval();
  }
  if (f.param >= 0) {
    const spec::Value& v = values[static_cast<size_t>(f.param)];
    if (!v.number) throw InputError(f.where, f.key, "'" + v.text + "' is not a number" + case_desc);
    return *v.number;
  }
  return std::nullopt;
}

// The partition as the case names it (possibly an alias).
std::string StepExpander::partition_name(const Values& values) const {
  return partition_.empty() ? sys_.default_partition : partition_.render(values, Escape::none);
}

// Index of partition `pname` in sys_.partitions; cached by name because most
// cases of a step share one.
size_t StepExpander::partition_index(const std::string& pname) {
  auto pit = partition_cache_.find(pname);
  if (pit == partition_cache_.end()) {
    const spec::Partition* p = spec::find_partition(sys_, pname);
    if (!p)
      throw InputError(partition_.empty() ? step_.where : partition_.where(), prefix_ + "job.partition",
                       "system '" + sys_.name + "' has no partition '" + pname + "'" +
                           did_you_mean(pname, spec::partition_names(sys_)) +
                           " (partitions: " + join(spec::partition_names(sys_), ", ") + ")");
    pit = partition_cache_.emplace(pname, static_cast<size_t>(p - sys_.partitions.data())).first;
  }
  return pit->second;
}

// Ranks, nodes and ranks per node of `cs`.
void StepExpander::count_ranks(Case& cs, const Values& values) {
  const std::string& desc = case_desc(values);
  Counts n{number_of(ranks_, values, desc), number_of(nodes_, values, desc), number_of(rpn_, values, desc)};
  complete(n);
  cs.ranks = integer(*n.ranks, ranks_, desc);
  cs.nodes = integer(*n.nodes, nodes_, desc);
  cs.ranks_per_node = integer(*n.per_node, rpn_, desc);
  // Fewer ranks than the nodes could hold: spread them evenly (2 ranks at 4 per node -> 2 on one node).
  if (cs.nodes > 0 && cs.ranks > 0 && cs.ranks < cs.nodes * cs.ranks_per_node)
    cs.ranks_per_node = (cs.ranks + cs.nodes - 1) / cs.nodes;
  if (cs.ranks < 1 || cs.nodes < 1 || cs.ranks_per_node < 1)
    throw InputError(ranks_.where, ranks_.key, "ranks, nodes and ranks per node must be at least 1" + desc);
  if (cs.ranks > cs.nodes * cs.ranks_per_node)
    throw InputError(nodes_.where, nodes_.key,
                     std::to_string(cs.nodes) + " nodes x " + std::to_string(cs.ranks_per_node) +
                         " ranks per node cannot hold " + std::to_string(cs.ranks) + " ranks" + desc);
  if (auto k = number_of(instances_, values, desc)) {
    cs.instances = integer(*k, instances_, desc);
    if (cs.instances < 1) throw InputError(instances_.where, instances_.key, "must be at least 1" + desc);
  }
}

// Cpus and GPUs per rank, memory, exclusive of `cs`, and the check that what it asks of each node
// fits `part` (resource::fit; on a one-host system, the machine holds all of the case's ranks).
void StepExpander::share_nodes(Case& cs, const Values& values, const spec::Partition& part) {
  const std::string& desc = case_desc(values);
  const bool one_host = sys_.one_host();
  // Unset, a rank gets its share of the node's cores and GPUs (on one host: of the machine's).
  const long sharing = one_host ? cs.job_ranks() : cs.ranks_per_node;
  auto C = number_of(cpr_, values, desc);
  cs.cpus_per_rank = C ? integer(*C, cpr_, desc) : std::max(1L, part.cores_per_node / sharing);
  // GPUs: unset, the node's GPUs shared out among its ranks, whole GPUs each while they last, else a
  // share 1/k (k ranks on each GPU): a rank of a GPU partition never goes without one.
  auto G = number_of(gpr_, values, desc);
  if (!G) {
    const long gpus = part.gpus_per_node;
    cs.gpus_per_rank = gpus >= sharing ? static_cast<double>(gpus / sharing)
                       : gpus > 0      ? 1.0 / static_cast<double>((sharing + gpus - 1) / gpus)
                                       : 0.0;
  } else if (!resource::valid_gpus_per_rank(*G)) {
    throw InputError(gpr_.where, gpr_.key,
                     "must be 0, a whole number or a share 1/k of a GPU (0.5: two ranks per GPU), got " +
                         format_number(*G) + desc);
  } else if (*G == 0 && part.gpus_per_node > 0 && !gpr_.says_zero && gpr_.param < 0 && gpr_.bare < 0 &&
             plan_.fit != Fit::skip) {
    // Computed 0 (an expression such as `rint(gpus / ranks)`, the old floor): a GPU case silently on
    // the CPU. A 0 the user wrote (the key, or a parameter it names) is meant.
    throw InputError(gpr_.where, gpr_.key,
                     "comes out 0: the case would get no GPU of partition '" + part.name + "' (" +
                         std::to_string(part.gpus_per_node) +
                         " per node); say `gpus_per_rank: 0` to run it without one, or a share "
                         "(0.5: two ranks per GPU)" +
                         desc);
  } else {
    cs.gpus_per_rank = *G;
  }
  const auto& job = sp_.job;
  if (!memory_.empty()) {
    std::string text = memory_.render(values, Escape::none);
    auto mb = resource::parse_memory_mb(text);
    if (!mb)
      throw InputError(memory_.where(), prefix_ + "job.memory",
                       "not a size: '" + text + "' (use 16G, 512M, ...)" + desc);
    cs.memory_mb = *mb;
  }
  if (!exclusive_.empty()) {
    std::string text = exclusive_.render(values, Escape::none);
    auto b = parse_bool(text);
    if (!b)
      throw InputError(exclusive_.where(), prefix_ + "job.exclusive",
                       "expected true or false, got '" + text + "'" + desc);
    cs.exclusive = *b;
  }
  cs.oversubscribe = job.oversubscribe && *job.oversubscribe;
  if (plan_.fit == Fit::skip) return;
  // An error points at the key that was set: the per-rank count, else ranks per node (ranks on one host).
  const resource::Demand d = cs.demand(one_host, part.cores_per_node);
  const resource::Node node = spec::node_of(part);
  const long per = one_host ? cs.job_ranks() : cs.ranks_per_node;
  const std::string per_what = one_host ? " ranks" : " ranks per node";
  const std::string where = one_host ? " of this machine (partition '" + part.name + "', one host)"
                                     : " per node of partition '" + part.name + "'";
  // The fit is resource::fit's; here only which key a shortfall blames and how it is said.
  auto blame = [&](const resource::Shortfall* s, double per_rank, const NumberField& f, bool set,
                   const char* unit, const char* node_unit, const std::string& hint) {
    if (!s) return;
    // On one host the ranks decide: the first of ranks, nodes, ranks per node that the job sets.
    auto given = [](const NumberField& n) { return n.expr.has_value() || n.param >= 0; };
    const NumberField& ranks_key = given(ranks_) ? ranks_ : given(nodes_) ? nodes_ : rpn_;
    const NumberField& at = set ? f : (one_host ? ranks_key : rpn_);
    throw InputError(at.where, at.key,
                     std::to_string(per) + per_what + " x " + format_number(per_rank) + " " + unit +
                         " per rank exceed the " + std::to_string(s->have) + " " + node_unit + where + desc +
                         hint);
  };
  const resource::Fit fit = resource::fit(node, d);
  blame(fit.of(resource::Resource::cores), static_cast<double>(cs.cpus_per_rank), cpr_, C.has_value(), "cpus",
        "cores", one_host ? " (oversubscribe: true lets ranks share cores)" : "");
  blame(fit.of(resource::Resource::gpus), cs.gpus_per_rank, gpr_, G.has_value(), "GPUs", "GPUs", "");
  if (auto* s = fit.of(resource::Resource::memory))
    throw InputError(
        memory_.where(), prefix_ + "job.memory",
        std::to_string(s->want) + " MB exceed the " + std::to_string(s->have) + " MB" + where + desc);
  // The partition's nodes: an instance's, then the job's (every instance's).
  auto nodes_short = [&](long nodes) {
    resource::Demand asked = d;
    asked.nodes = nodes;
    return resource::fit(node, asked, part.max_nodes).of(resource::Resource::nodes) != nullptr;
  };
  if (nodes_short(cs.nodes))
    throw InputError(nodes_.expr ? nodes_.where : ranks_.where, nodes_.expr ? nodes_.key : ranks_.key,
                     std::to_string(cs.nodes) + " nodes exceed the " + std::to_string(part.max_nodes) +
                         " nodes of partition '" + part.name + "'" + desc);
  if (nodes_short(cs.job_nodes()))
    throw InputError(instances_.where, instances_.key,
                     std::to_string(cs.instances) + " instances x " + std::to_string(cs.nodes) +
                         " nodes exceed the " + std::to_string(part.max_nodes) + " nodes of partition '" +
                         part.name + "'" + desc);
}

// Makes the geometry visible to the templates rendered after it (walltime, name).
void StepExpander::record_geometry(const Case& cs, const std::string& pname, Values& values) {
  const Schema& sc = *schema_;
  set(values, static_cast<size_t>(sc.find("ranks")), static_cast<double>(cs.ranks));
  set(values, static_cast<size_t>(sc.find("nodes")), static_cast<double>(cs.nodes));
  set(values, static_cast<size_t>(sc.find("ranks_per_node")), static_cast<double>(cs.ranks_per_node));
  set(values, static_cast<size_t>(sc.find("cpus_per_rank")), static_cast<double>(cs.cpus_per_rank));
  set(values, static_cast<size_t>(sc.find("gpus_per_rank")), cs.gpus_per_rank);
  set(values, static_cast<size_t>(sc.find("instances")), static_cast<double>(cs.instances));
  // The job script gives each instance its own number; the case itself is instance 0.
  set(values, static_cast<size_t>(sc.find("instance")), 0);
  // A user-defined `partition` parameter keeps its value.
  size_t pslot = static_cast<size_t>(sc.find("partition"));
  if (pslot >= user_names_) values[pslot] = spec::Value{pname, std::nullopt};
}

// Seconds of the step's walltime template (parsed once per distinct text), or
// the case's default when the job sets none.
long StepExpander::walltime_of(const Case& cs, const Values& values) {
  if (walltime_.empty()) return cs.walltime_s;
  std::string w = walltime_.render(values, Escape::none);
  auto wit = walltime_cache_.find(w);
  if (wit == walltime_cache_.end()) {
    auto secs = parse_walltime(w, sys_.walltime_grammar);
    if (!secs || *secs <= 0)
      throw InputError(
          walltime_.where(), prefix_ + "job.walltime",
          "not a walltime: '" + w + "' (" + walltime_forms(sys_.walltime_grammar) +
              (sys_.walltime_grammar == WalltimeGrammar::lsf ? ", as " + sys_.name + "'s profile says" : "") +
              ")" + case_desc(values));
    wit = walltime_cache_.emplace(w, *secs).first;
  }
  return wit->second;
}

// The partition's limit, else the system's.
void StepExpander::check_walltime(const Case& cs, const spec::Partition& part, const Values& values) {
  long limit = part.max_walltime_s ? part.max_walltime_s : sys_.limits.max_walltime_s;
  if (cs.walltime_s > limit)
    throw InputError(walltime_.empty() ? step_.where : walltime_.where(), prefix_ + "job.walltime",
                     "walltime " + format_hms(cs.walltime_s) + " exceeds the " + format_hms(limit) +
                         " limit of partition '" + part.name + "' on " + sys_.name + case_desc(values));
}

// Every case of a packed step fits in one allocation, and an allocation in its partition.
void StepExpander::check_pack() const {
  if (!sp_.pack) return;
  const spec::Pack& pack = *sp_.pack;
  std::string key = (step_.pack ? "steps." + step_.name + "." : std::string()) + "pack";
  const long alloc_nodes = plan_.pack_nodes(pack);
  for (size_t i = sp_.first_case; i < sp_.first_case + sp_.case_count; ++i) {
    const Case& cs = plan_.cases[i];
    const auto& part = sys_.partitions[cs.partition];
    const resource::Node node = spec::node_of(part);
    if (resource::fit(node, resource::Demand{alloc_nodes}, part.max_nodes).of(resource::Resource::nodes))
      throw InputError(pack.where, key + ".nodes",
                       std::to_string(pack.nodes) + " nodes exceed the " + std::to_string(part.max_nodes) +
                           " of partition '" + part.name + "' on " + sys_.name);
    if (resource::fit(node, plan_.demand_of(cs), alloc_nodes).of(resource::Resource::nodes))
      throw InputError(pack.where, key + ".nodes",
                       "case " + cs.name + " needs " + std::to_string(plan_.demand_of(cs).nodes) +
                           " nodes, more than an allocation's " + std::to_string(alloc_nodes));
    long limit = part.max_walltime_s ? part.max_walltime_s : sys_.limits.max_walltime_s;
    if (pack.walltime_s && *pack.walltime_s > limit)
      throw InputError(pack.where, key + ".walltime",
                       "walltime " + format_hms(*pack.walltime_s) + " exceeds the " + format_hms(limit) +
                           " limit of partition '" + part.name + "' on " + sys_.name);
    if (pack.walltime_s && cs.walltime_s > *pack.walltime_s)
      throw InputError(pack.where, key + ".walltime",
                       "case " + cs.name + " needs " + format_hms(cs.walltime_s) +
                           ", more than an allocation's " + format_hms(*pack.walltime_s));
  }
}

// The tasks of a job array share its directives: every case of an array step has one geometry
// (walltimes may differ: the array asks for the longest). Not together with pack.
void StepExpander::check_array() const {
  if (!sp_.array || sp_.case_count == 0) return;
  const spec::Array& array = *sp_.array;
  std::string key = (step_.array ? "steps." + step_.name + "." : std::string()) + "array";
  if (sp_.pack)
    throw InputError(
        array.where, key,
        "step " + step_.name + " is both packed and an array; choose one (pack: false or array: false)");
  auto geometry = [&](const Case& cs) {
    return fmt::format("{} node{} x {} rank{} ({} per node, {} cpu{} and {} gpu{} per rank{}) on '{}'",
                       cs.job_nodes(), cs.job_nodes() == 1 ? "" : "s", cs.job_ranks(),
                       cs.job_ranks() == 1 ? "" : "s", cs.ranks_per_node, cs.cpus_per_rank,
                       cs.cpus_per_rank == 1 ? "" : "s", cs.gpus_per_rank, cs.gpus_per_rank == 1 ? "" : "s",
                       cs.instances > 1 ? ", " + std::to_string(cs.instances) + " instances" : std::string(),
                       sys_.partitions[cs.partition].name);
  };
  const Case& first = plan_.cases[sp_.first_case];
  for (size_t i = sp_.first_case + 1; i < sp_.first_case + sp_.case_count; ++i) {
    const Case& cs = plan_.cases[i];
    if (geometry(cs) != geometry(first))
      throw InputError(array.where, key,
                       "an array's tasks share one geometry, but case " + first.name + " asks for " +
                           geometry(first) + " and case " + cs.name + " for " + geometry(cs) +
                           "; split the step or use pack");
  }
}

}  // namespace campaign::matrix
