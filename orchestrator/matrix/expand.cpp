// Matrix expansion: each step's axes are combined (product, zip groups,
// exclusions, repeats) into cases, in declaration order with the last axis
// varying fastest; see step_expander.hpp for how the work is split.
//
// Invariant: every expression and template is compiled before the first case
// is made, so a mistake in the campaign fails the same way however many cases
// it has.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "matrix/step_expander.hpp"
#include "matrix/steps.hpp"
#include "util/strings.hpp"
#include "util/walltime.hpp"

namespace campaign::matrix {

using spec::Value;

std::string format_number(double v) {
  char buf[64];
  if (std::isfinite(v) && std::fabs(v) < 1e15 && v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

const std::string& Plan::param(const Case& c, const std::string& name) const {
  static const std::string empty;
  int i = steps[c.step].schema->find(name);
  return i < 0 ? empty : c.values[static_cast<size_t>(i)].text;
}

namespace {

void patch(spec::Job& job, const spec::Job& over) {
  auto take = [](auto& into, const auto& from) {
    if (from) into = from;
  };
  take(job.template_name, over.template_name);
  take(job.command, over.command);
  take(job.walltime, over.walltime);
  take(job.partition, over.partition);
  take(job.ranks, over.ranks);
  take(job.nodes, over.nodes);
  take(job.ranks_per_node, over.ranks_per_node);
  take(job.cpus_per_rank, over.cpus_per_rank);
  take(job.gpus_per_rank, over.gpus_per_rank);
  take(job.instances, over.instances);
  take(job.launch, over.launch);
  take(job.memory, over.memory);
  take(job.exclusive, over.exclusive);
  take(job.oversubscribe, over.oversubscribe);
  take(job.modules, over.modules);
  take(job.setup, over.setup);
  take(job.scheduler_options, over.scheduler_options);
  take(job.container, over.container);
  take(job.sample, over.sample);
  for (size_t i = 0; i < over.env.size(); ++i) {
    bool replaced = false;
    for (auto& e : job.env)
      if (e.first == over.env[i].first) e.second = over.env[i].second, replaced = true;
    if (!replaced) job.env.push_back(over.env[i]), job.env_where.push_back(over.env_where[i]);
  }
}

bool values_equal(const std::string& a, const std::string& b) {
  if (a == b) return true;
  Value va = Value::from_text(a), vb = Value::from_text(b);
  return va.number && vb.number && *va.number == *vb.number;
}

}  // namespace

StepExpander::StepExpander(Plan& plan, size_t step_index, std::unordered_map<std::string, size_t>& names)
    : plan_(plan), c_(plan.campaign), sys_(plan.system), step_(c_.steps[step_index]), names_(names) {
  sp_.name = step_.name;
  sp_.step = step_index;
  mx_ = step_.matrix ? *step_.matrix : c_.matrix;
  sp_.job = c_.job;
  patch(sp_.job, step_.job);
  if (const auto& pack = step_.pack ? step_.pack : c_.pack; pack && pack->enabled) sp_.pack = *pack;
  if (const auto& array = step_.array ? step_.array : c_.array; array && array->enabled) sp_.array = *array;
  derived_ = c_.derived;
  own_matrix_ = static_cast<bool>(step_.matrix);
  campaign_derived_ = derived_.size();
  for (auto& d : step_.derived) {
    bool replaced = false;
    for (auto& e : derived_)
      if (e.name == d.name) e = d, replaced = true;
    if (!replaced) derived_.push_back(d);
  }
  prefix_ = "steps." + step_.name + ".";
  if (c_.steps.size() == 1) prefix_.clear();
}

void StepExpander::run() {
  build_schema();
  compile();
  iterate();
  check_pack();
  check_array();
  plan_.steps.push_back(std::move(sp_));
}

// Names visible to an expression: everything user-defined before `limit`.
std::vector<std::string> StepExpander::visible(size_t limit) const {
  return std::vector<std::string>(schema_->names.begin(), schema_->names.begin() + static_cast<long>(limit));
}

// Compiles every expression and template once, so a bad one fails before any
// case is made and each case only evaluates.
void StepExpander::compile() {
  compile_derived();
  compile_geometry();
  const auto& job = sp_.job;
  const Schema& sc = *schema_;
  if (!job.command) throw InputError(step_.where, prefix_ + "job.command", "required key is missing");
  sp_.command = TextTemplate(*job.command, sc, job.command.where, prefix_ + "job.command");
  for (size_t i = 0; i < job.env.size(); ++i)
    TextTemplate(job.env[i].second, sc, job.env_where[i], prefix_ + "job.env." + job.env[i].first);
  compile_name();
  compile_excludes();
  compile_dims();
}

void StepExpander::compile_derived() {
  const Schema& sc = *schema_;
  for (auto& d : derived_) {
    size_t slot = static_cast<size_t>(sc.find(d.name));
    derived_exprs_.emplace_back(d.expression, visible(slot), nums_.data(), d.where, "derived." + d.name);
    derived_slots_.push_back(slot);
  }
}

// Exclude rules name parameters known before the job's geometry.
void StepExpander::compile_excludes() {
  const Schema& sc = *schema_;
  for (auto& rule : mx_.exclude) {
    std::vector<std::pair<size_t, std::vector<std::string>>> compiled;
    for (auto& [k, vals] : rule.match) {
      int i = sc.find(k);
      if (i < 0 || static_cast<size_t>(i) >= user_names_)
        throw InputError(rule.where, "matrix.exclude",
                         "unknown parameter '" + k + "'" + did_you_mean(k, visible(user_names_)));
      compiled.emplace_back(static_cast<size_t>(i), vals);
    }
    excludes_.push_back(std::move(compiled));
  }
}

// Dimensions: zip groups vary together; other axes independently.
void StepExpander::compile_dims() {
  std::vector<int> in_zip(mx_.axes.size(), -1);
  for (size_t z = 0; z < mx_.zip.size(); ++z) {
    Dim dim;
    for (auto& name : mx_.zip[z]) {
      size_t idx = mx_.axes.size();
      std::vector<std::string> axis_names;
      for (size_t a = 0; a < mx_.axes.size(); ++a) {
        axis_names.push_back(mx_.axes[a].name);
        if (mx_.axes[a].name == name) idx = a;
      }
      if (idx == mx_.axes.size())
        throw InputError(mx_.zip_where[z], "matrix.zip",
                         "unknown axis '" + name + "'" + did_you_mean(name, axis_names));
      if (in_zip[idx] >= 0)
        throw InputError(mx_.zip_where[z], "matrix.zip", "axis '" + name + "' is in two zip groups");
      in_zip[idx] = static_cast<int>(z);
      if (dim.length && dim.length != mx_.axes[idx].values.size())
        throw InputError(mx_.zip_where[z], "matrix.zip",
                         "zipped axes must have the same number of values ('" + name + "' has " +
                             std::to_string(mx_.axes[idx].values.size()) + ", '" +
                             mx_.axes[dim.axes[0]].name + "' has " + std::to_string(dim.length) + ")");
      dim.length = mx_.axes[idx].values.size();
      dim.axes.push_back(idx);
    }
    dims_.push_back(dim);
  }
  // Independent axes keep their declaration order; a zip group sits where its first axis is.
  std::vector<Dim> ordered;
  std::vector<bool> zip_done(mx_.zip.size(), false);
  for (size_t a = 0; a < mx_.axes.size(); ++a) {
    if (in_zip[a] < 0) {
      ordered.push_back(Dim{{a}, mx_.axes[a].values.size(), false});
    } else if (!zip_done[static_cast<size_t>(in_zip[a])]) {
      zip_done[static_cast<size_t>(in_zip[a])] = true;
      ordered.push_back(dims_[static_cast<size_t>(in_zip[a])]);
    }
  }
  if (mx_.repeat > 1) ordered.push_back(Dim{{}, static_cast<size_t>(mx_.repeat), true});
  dims_ = std::move(ordered);
  // Counted before anything is expanded: a matrix of a billion cases is refused at once, not after
  // filling the memory. Blamed on its longest dimension, where the typo most likely is.
  double cases = 1;
  const Dim* longest = nullptr;
  std::vector<std::string> factors;
  for (auto& d : dims_) {
    cases *= static_cast<double>(d.length);
    if (!longest || d.length > longest->length) longest = &d;
    factors.push_back(fmt::format("{} {}", d.length, d.repeat ? "repeat" : mx_.axes[d.axes.front()].name));
  }
  if (longest && cases > static_cast<double>(spec::kMaxCases))
    throw InputError(
        longest->repeat ? mx_.repeat_where : mx_.axes[longest->axes.front()].where,
        longest->repeat ? "matrix.repeat" : "matrix." + mx_.axes[longest->axes.front()].name,
        fmt::format("the matrix expands to {:.0f} cases ({}), more than the {} a campaign may hold", cases,
                    join(factors, " x "), spec::kMaxCases));
}

// Loads `values` into the numeric slots an expression reads, checking they are numbers.
void StepExpander::check_numeric(const Expression& e, const Values& values,
                                 const std::string& case_hint) const {
  for (size_t i : e.uses())
    if (!values[i].number)
      throw InputError(e.where(), e.key(),
                       "'" + schema_->names[i] + "' is not a number ('" + values[i].text + "')" + case_hint);
}

void StepExpander::set(Values& values, size_t slot, double v) {
  values[slot] = Value{format_number(v), v};
  nums_[slot] = v;
}

const std::string& StepExpander::case_desc(const Values& values) {
  if (desc_.empty()) desc_ = describe(values);
  return desc_;
}

bool StepExpander::excluded(const Values& values) const {
  for (auto& rule : excludes_) {
    bool all = true;
    for (auto& [slot, vals] : rule) {
      bool any = false;
      for (auto& v : vals) any |= values_equal(values[slot].text, v);
      all &= any;
    }
    if (all) return true;
  }
  return false;
}

// In declaration order: a derived value may use the ones before it.
void StepExpander::compute_derived(Values& values) {
  for (size_t d = 0; d < derived_exprs_.size(); ++d) {
    check_numeric(derived_exprs_[d], values, case_desc(values));
    set(values, derived_slots_[d], derived_exprs_[d].eval());
  }
}

// One combination of the matrix becomes a case, unless excluded. The order
// matters: derived values may feed the geometry, and the walltime and name
// templates may use both.
void StepExpander::make_case(Values& values) {
  for (size_t i = 0; i < values.size(); ++i) nums_[i] = values[i].number ? *values[i].number : NAN;
  if (excluded(values)) return;
  desc_.clear();
  compute_derived(values);
  Case cs;
  cs.step = plan_.steps.size();
  std::string pname = partition_name(values);
  cs.partition = partition_index(pname);
  const spec::Partition& part = sys_.partitions[cs.partition];
  count_ranks(cs, values);
  share_nodes(cs, values, part);
  record_geometry(cs, pname, values);
  cs.walltime_s = walltime_of(cs, values);
  check_walltime(cs, part, values);
  cs.name = name_of(values);
  cs.key = key_of(values);
  cs.values = values;
  plan_.node_hours += plan_.node_hours_of(cs);
  plan_.cases.push_back(std::move(cs));
}

void StepExpander::iterate() {
  sp_.first_case = plan_.cases.size();
  std::vector<size_t> idx(dims_.size(), 0);
  std::vector<Value> values = base_;
  const Schema& sc = *schema_;
  for (;;) {
    for (size_t d = 0; d < dims_.size(); ++d) {
      const Dim& dim = dims_[d];
      if (dim.repeat) {
        values[static_cast<size_t>(sc.find("repeat"))] = Value::from_text(std::to_string(idx[d] + 1));
        continue;
      }
      for (size_t a : dim.axes) {
        const auto& axis = mx_.axes[a];
        const auto& av = axis.values[idx[d]];
        values[static_cast<size_t>(sc.find(axis.name))] = av.value;
        for (auto& [attr, v] : av.attributes) values[static_cast<size_t>(sc.find(attr))] = v;
      }
    }
    make_case(values);
    // Restore attributes that fall back to constants for the next combination.
    values = base_;
    // Odometer: the last dimension varies fastest.
    size_t d = dims_.size();
    while (d > 0) {
      --d;
      if (++idx[d] < dims_[d].length) break;
      idx[d] = 0;
      if (d == 0) {
        d = SIZE_MAX;
        break;
      }
    }
    if (dims_.empty() || d == SIZE_MAX) break;
  }
  sp_.case_count = plan_.cases.size() - sp_.first_case;
  if (sp_.case_count == 0)
    throw InputError(c_.matrix_where, prefix_ + "matrix.exclude",
                     "every case of step '" + step_.name + "' is excluded");
}

Plan expand(const spec::Campaign& campaign, const spec::System& system, const std::string& workdir, Fit fit) {
  Plan plan;
  plan.workdir = workdir;
  plan.fit = fit;
  plan.campaign = campaign;
  plan.system = system;
  // pack: walltimes were read before the system was known, as Slurm reads them; a profile that reads
  // walltimes as LSF does gets them so (the forms differ only in "H:M", never in whether one parses).
  if (system.walltime_grammar != WalltimeGrammar::slurm) {
    auto reread = [&](spec::Field<spec::Pack>& pack) {
      if (pack && !pack.value->walltime_text.empty())
        pack.value->walltime_s = parse_walltime(pack.value->walltime_text, system.walltime_grammar);
    };
    reread(plan.campaign.pack);
    for (auto& step : plan.campaign.steps) reread(step.pack);
  }
  std::unordered_map<std::string, size_t> names;
  for (size_t i : order_steps(plan.campaign)) StepExpander(plan, i, names).run();
  link_dependencies(plan);
  return plan;
}

}  // namespace campaign::matrix
