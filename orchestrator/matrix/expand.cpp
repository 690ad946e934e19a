#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <unordered_map>

#include "matrix/expr.hpp"
#include "matrix/plan.hpp"
#include "util/hash.hpp"
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
  take(job.launch, over.launch);
  take(job.modules, over.modules);
  take(job.setup, over.setup);
  take(job.scheduler_options, over.scheduler_options);
  take(job.container, over.container);
  for (size_t i = 0; i < over.env.size(); ++i) {
    bool replaced = false;
    for (auto& e : job.env)
      if (e.first == over.env[i].first) e.second = over.env[i].second, replaced = true;
    if (!replaced) job.env.push_back(over.env[i]), job.env_where.push_back(over.env_where[i]);
  }
}

// Orders enabled steps so that every step comes after the steps it waits for.
std::vector<size_t> order_steps(const spec::Campaign& c) {
  std::vector<std::string> names;
  for (auto& s : c.steps) names.push_back(s.name);
  for (auto& s : c.steps)
    for (auto& a : s.after) {
      if (a == s.name)
        throw InputError(s.after_where, "steps." + s.name + ".after", "a step cannot wait for itself");
      if (!spec::find_step(c, a))
        throw InputError(s.after_where, "steps." + s.name + ".after",
                         "unknown step '" + a + "'" + did_you_mean(a, names));
    }
  std::vector<size_t> order;
  std::vector<int> mark(c.steps.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<std::string> path;
  std::function<void(size_t)> visit = [&](size_t i) {
    if (mark[i] == 2) return;
    const auto& s = c.steps[i];
    path.push_back(s.name);
    if (mark[i] == 1)
      throw InputError(s.after_where, "steps." + s.name + ".after",
                       "cyclic step dependencies: " + join(path, " -> "));
    mark[i] = 1;
    for (auto& a : s.after)
      for (size_t j = 0; j < c.steps.size(); ++j)
        if (c.steps[j].name == a) visit(j);
    mark[i] = 2;
    path.pop_back();
    order.push_back(i);
  };
  for (size_t i = 0; i < c.steps.size(); ++i) visit(i);
  std::vector<size_t> enabled;
  for (size_t i : order)
    if (c.steps[i].enabled) enabled.push_back(i);
  return enabled;
}

bool safe_name(const std::string& s) {
  if (s.empty() || s == "." || s == ".." || s[0] == '-' || s[0] == '.') return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("._+-=@,").find(c) != std::string_view::npos))
      return false;
  return true;
}

bool values_equal(const std::string& a, const std::string& b) {
  if (a == b) return true;
  Value va = Value::from_text(a), vb = Value::from_text(b);
  return va.number && vb.number && *va.number == *vb.number;
}

struct Dim {
  std::vector<size_t> axes;  // indices into matrix.axes (several for a zip group)
  size_t length = 0;
  bool repeat = false;
};

struct NumberField {
  std::optional<Expression> expr;
  int param = -1;  // a user-defined parameter of the same name
  Location where;
  std::string key;
};

class StepExpander {
 public:
  StepExpander(Plan& plan, size_t step_index, std::unordered_map<std::string, size_t>& names)
      : plan_(plan), c_(plan.campaign), sys_(plan.system), step_(c_.steps[step_index]), names_(names) {
    sp_.name = step_.name;
    sp_.step = step_index;
    mx_ = step_.matrix ? *step_.matrix : c_.matrix;
    sp_.job = c_.job;
    patch(sp_.job, step_.job);
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

  void run() {
    build_schema();
    compile();
    iterate();
    plan_.steps.push_back(std::move(sp_));
  }

 private:
  void build_schema() {
    auto schema = std::make_shared<Schema>();
    Schema& sc = *schema;
    base_.clear();
    auto set_base = [&](size_t slot, const Value& v) {
      if (base_.size() <= slot) base_.resize(slot + 1);
      base_[slot] = v;
    };
    set_base(sc.add("campaign"), Value::from_text(c_.name));
    set_base(sc.add("step"), Value::from_text(step_.name));
    set_base(sc.add("system"), Value::from_text(sys_.name));
    set_base(sc.add("campaign_dir"), Value::from_text(c_.dir.string()));
    set_base(sc.add("workdir"), Value::from_text(plan_.workdir));
    for (auto& [k, v] : c_.params) set_base(sc.add(k), v);
    std::unordered_map<std::string, std::string> owner;  // attribute -> axis
    for (auto& axis : mx_.axes) {
      if (owner.count(axis.name))
        throw InputError(axis.where, "matrix." + axis.name,
                         "'" + axis.name + "' is also an attribute of axis '" + owner[axis.name] + "'");
      owner[axis.name] = axis.name;
      sc.add(axis.name);
      sp_.axes.push_back(axis.name);
    }
    for (auto& axis : mx_.axes)
      for (auto& v : axis.values)
        for (auto& [attr, _] : v.attributes) {
          auto it = owner.find(attr);
          if (it != owner.end() && it->second != axis.name)
            throw InputError(v.where, "matrix." + axis.name + "." + attr,
                             "'" + attr + "' is already defined by axis '" + it->second + "'");
          owner[attr] = axis.name;
          sc.add(attr);
        }
    // An attribute missing from some values of its axis needs a constant to fall back on.
    for (auto& axis : mx_.axes)
      for (auto& [attr, ax] : owner) {
        if (ax != axis.name || attr == axis.name) continue;
        for (auto& v : axis.values) {
          bool has = false;
          for (auto& a : v.attributes) has |= a.first == attr;
          bool constant = false;
          for (auto& p : c_.params) constant |= p.first == attr;
          if (!has && !constant)
            throw InputError(v.where, "matrix." + axis.name,
                             "value '" + v.value.text + "' has no attribute '" + attr +
                                 "' that other values of the axis set (add it, or a default under params)");
        }
      }
    if (mx_.repeat > 1) {
      if (sc.find("repeat") >= 0 && owner.count("repeat"))
        throw InputError(mx_.repeat_where, "matrix.repeat",
                         "an axis or attribute is already called 'repeat'");
      sc.add("repeat");
      sp_.axes.push_back("repeat");
    }
    // A step with its own matrix keeps only the campaign's derived values it can
    // compute (a staging step has no `ranks`); anything using a dropped one fails
    // later as an undefined name.
    if (own_matrix_) {
      std::vector<spec::Derived> kept;
      for (size_t i = 0; i < derived_.size(); ++i) {
        bool ok = true;
        if (i < campaign_derived_)
          for (auto& n :
               expression_names(derived_[i].expression, derived_[i].where, "derived." + derived_[i].name)) {
            bool known = sc.find(n) >= 0;
            for (auto& k : kept) known |= k.name == n;
            ok &= known;
          }
        if (ok) kept.push_back(derived_[i]);
      }
      derived_ = std::move(kept);
    }
    for (auto& d : derived_) {
      if (owner.count(d.name))
        throw InputError(d.where, "derived." + d.name,
                         "'" + d.name + "' is already a matrix axis or attribute");
      sc.add(d.name);
    }
    user_names_ = sc.names.size();
    for (const char* n : {"ranks", "nodes", "ranks_per_node", "cpus_per_rank", "gpus_per_rank", "partition"})
      sc.add(n);
    base_.resize(sc.names.size());
    nums_.assign(sc.names.size(), std::numeric_limits<double>::quiet_NaN());
    schema_ = schema;
    sp_.schema = schema;
  }

  // Names visible to an expression: everything user-defined before `limit`.
  std::vector<std::string> visible(size_t limit) const {
    return std::vector<std::string>(schema_->names.begin(),
                                    schema_->names.begin() + static_cast<long>(limit));
  }

  void compile() {
    const Schema& sc = *schema_;
    for (auto& d : derived_) {
      size_t slot = static_cast<size_t>(sc.find(d.name));
      derived_exprs_.emplace_back(d.expression, visible(slot), nums_.data(), d.where, "derived." + d.name);
      derived_slots_.push_back(slot);
    }
    auto number = [&](const spec::Field<std::string>& f, const char* name, NumberField& out) {
      out.key = prefix_ + "job." + name;
      out.where = f ? f.where : step_.where;
      if (f) {
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
    // Templates see every name, the job's geometry included.
    if (job.partition)
      partition_ = TextTemplate(*job.partition, sc, job.partition.where, prefix_ + "job.partition");
    else if (sc.find("partition") >= 0 && static_cast<size_t>(sc.find("partition")) < user_names_)
      partition_ = TextTemplate("{{partition}}", sc, step_.where, prefix_ + "job.partition");
    if (job.walltime)
      walltime_ = TextTemplate(*job.walltime, sc, job.walltime.where, prefix_ + "job.walltime");
    if (!job.command) throw InputError(step_.where, prefix_ + "job.command", "required key is missing");
    sp_.command = TextTemplate(*job.command, sc, job.command.where, prefix_ + "job.command");
    for (size_t i = 0; i < job.env.size(); ++i)
      TextTemplate(job.env[i].second, sc, job.env_where[i], prefix_ + "job.env." + job.env[i].first);
    std::string name_text;
    Location name_where = step_.where;
    if (c_.name_template) name_text = *c_.name_template, name_where = c_.name_template.where;
    if (step_.name_template) name_text = *step_.name_template, name_where = step_.name_template.where;
    if (name_text.empty()) {  // default: step name and the matrix coordinates
      std::vector<std::string> parts;
      if (c_.steps.size() > 1 || sp_.axes.empty()) parts.push_back("{{step}}");
      for (auto& a : sp_.axes) parts.push_back("{{" + a + "}}");
      name_text = join(parts, "-");
    }
    name_ =
        TextTemplate(name_text, sc, name_where, step_.name_template ? prefix_ + "case_name" : "case_name");
    // Exclude rules name parameters known before the job's geometry.
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
    // Dimensions: zip groups vary together; other axes independently.
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
  }

  // Loads `values` into the numeric slots an expression reads, checking they are numbers.
  void check_numeric(const Expression& e, const std::vector<Value>& values,
                     const std::string& case_hint) const {
    for (size_t i : e.uses())
      if (!values[i].number)
        throw InputError(
            e.where(), e.key(),
            "'" + schema_->names[i] + "' is not a number ('" + values[i].text + "')" + case_hint);
  }

  void set(std::vector<Value>& values, size_t slot, double v) {
    values[slot] = Value{format_number(v), v};
    nums_[slot] = v;
  }

  long integer(double v, const NumberField& f, const std::string& case_desc) const {
    if (!std::isfinite(v) || v != std::floor(v) || v < 0)
      throw InputError(f.where, f.key, "must be a whole number, got " + format_number(v) + case_desc);
    return static_cast<long>(v);
  }

  std::optional<double> number_of(const NumberField& f, const std::vector<Value>& values,
                                  const std::string& case_desc) const {
    if (f.expr) {
      check_numeric(*f.expr, values, case_desc);
      return f.expr->eval();
    }
    if (f.param >= 0) {
      const Value& v = values[static_cast<size_t>(f.param)];
      if (!v.number) throw InputError(f.where, f.key, "'" + v.text + "' is not a number" + case_desc);
      return *v.number;
    }
    return std::nullopt;
  }

  std::string describe(const std::vector<Value>& values) const {
    std::vector<std::string> parts;
    for (auto& a : sp_.axes) parts.push_back(a + "=" + values[static_cast<size_t>(schema_->find(a))].text);
    return parts.empty() ? " (step " + step_.name + ")" : " (case " + join(parts, ", ") + ")";
  }

  void make_case(std::vector<Value>& values) {
    const Schema& sc = *schema_;
    for (size_t i = 0; i < values.size(); ++i) nums_[i] = values[i].number ? *values[i].number : NAN;
    for (auto& rule : excludes_) {
      bool all = true;
      for (auto& [slot, vals] : rule) {
        bool any = false;
        for (auto& v : vals) any |= values_equal(values[slot].text, v);
        all &= any;
      }
      if (all) return;
    }
    std::string desc;  // built lazily: only errors need it
    auto case_desc = [&]() -> const std::string& {
      if (desc.empty()) desc = describe(values);
      return desc;
    };
    for (size_t d = 0; d < derived_exprs_.size(); ++d) {
      check_numeric(derived_exprs_[d], values, case_desc());
      set(values, derived_slots_[d], derived_exprs_[d].eval());
    }
    Case cs;
    cs.step = plan_.steps.size();
    // Partition.
    std::string pname = partition_.empty() ? sys_.default_partition : partition_.render(values, Escape::none);
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
    cs.partition = pit->second;
    const spec::Partition& part = sys_.partitions[cs.partition];
    // Geometry: any two of ranks, nodes, ranks_per_node give the third.
    auto R = number_of(ranks_, values, case_desc());
    auto N = number_of(nodes_, values, case_desc());
    auto P = number_of(rpn_, values, case_desc());
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
    cs.ranks = integer(*R, ranks_, case_desc());
    cs.nodes = integer(*N, nodes_, case_desc());
    cs.ranks_per_node = integer(*P, rpn_, case_desc());
    // Fewer ranks than the nodes could hold: spread them evenly (2 ranks at 4 per node -> 2 on one node).
    if (cs.nodes > 0 && cs.ranks > 0 && cs.ranks < cs.nodes * cs.ranks_per_node)
      cs.ranks_per_node = (cs.ranks + cs.nodes - 1) / cs.nodes;
    if (cs.ranks < 1 || cs.nodes < 1 || cs.ranks_per_node < 1)
      throw InputError(ranks_.where, ranks_.key,
                       "ranks, nodes and ranks per node must be at least 1" + case_desc());
    if (cs.ranks > cs.nodes * cs.ranks_per_node)
      throw InputError(nodes_.where, nodes_.key,
                       std::to_string(cs.nodes) + " nodes x " + std::to_string(cs.ranks_per_node) +
                           " ranks per node cannot hold " + std::to_string(cs.ranks) + " ranks" +
                           case_desc());
    auto C = number_of(cpr_, values, case_desc());
    cs.cpus_per_rank =
        C ? integer(*C, cpr_, case_desc()) : std::max(1L, part.cores_per_node / cs.ranks_per_node);
    auto G = number_of(gpr_, values, case_desc());
    cs.gpus_per_rank = G ? integer(*G, gpr_, case_desc()) : part.gpus_per_node / cs.ranks_per_node;
    if (cs.ranks_per_node * cs.cpus_per_rank > part.cores_per_node)
      throw InputError(C ? cpr_.where : rpn_.where, C ? cpr_.key : rpn_.key,
                       std::to_string(cs.ranks_per_node) + " ranks per node x " +
                           std::to_string(cs.cpus_per_rank) + " cpus per rank exceed the " +
                           std::to_string(part.cores_per_node) + " cores per node of partition '" +
                           part.name + "'" + case_desc());
    if (cs.ranks_per_node * cs.gpus_per_rank > part.gpus_per_node)
      throw InputError(G ? gpr_.where : rpn_.where, G ? gpr_.key : rpn_.key,
                       std::to_string(cs.ranks_per_node) + " ranks per node x " +
                           std::to_string(cs.gpus_per_rank) + " GPUs per rank exceed the " +
                           std::to_string(part.gpus_per_node) + " GPUs per node of partition '" + part.name +
                           "'" + case_desc());
    if (part.max_nodes && cs.nodes > part.max_nodes)
      throw InputError(N && nodes_.expr ? nodes_.where : ranks_.where, nodes_.expr ? nodes_.key : ranks_.key,
                       std::to_string(cs.nodes) + " nodes exceed the " + std::to_string(part.max_nodes) +
                           " nodes of partition '" + part.name + "'" + case_desc());
    set(values, static_cast<size_t>(sc.find("ranks")), static_cast<double>(cs.ranks));
    set(values, static_cast<size_t>(sc.find("nodes")), static_cast<double>(cs.nodes));
    set(values, static_cast<size_t>(sc.find("ranks_per_node")), static_cast<double>(cs.ranks_per_node));
    set(values, static_cast<size_t>(sc.find("cpus_per_rank")), static_cast<double>(cs.cpus_per_rank));
    set(values, static_cast<size_t>(sc.find("gpus_per_rank")), static_cast<double>(cs.gpus_per_rank));
    size_t pslot = static_cast<size_t>(sc.find("partition"));
    if (pslot >= user_names_) values[pslot] = Value{pname, std::nullopt};
    // Walltime, within the partition's (else the system's) limit.
    if (!walltime_.empty()) {
      std::string w = walltime_.render(values, Escape::none);
      auto wit = walltime_cache_.find(w);
      if (wit == walltime_cache_.end()) {
        auto secs = parse_walltime(w);
        if (!secs || *secs <= 0)
          throw InputError(walltime_.where(), prefix_ + "job.walltime",
                           "not a walltime: '" + w + "' (use HH:MM:SS, 90m, 2h...)" + case_desc());
        wit = walltime_cache_.emplace(w, *secs).first;
      }
      cs.walltime_s = wit->second;
    }
    long limit = part.max_walltime_s ? part.max_walltime_s : sys_.limits.max_walltime_s;
    if (cs.walltime_s > limit)
      throw InputError(walltime_.empty() ? step_.where : walltime_.where(), prefix_ + "job.walltime",
                       "walltime " + format_hms(cs.walltime_s) + " exceeds the " + format_hms(limit) +
                           " limit of partition '" + part.name + "' on " + sys_.name + case_desc());
    // Name: unique across the campaign and usable as a directory name.
    cs.name = name_.render(values, Escape::none);
    if (!safe_name(cs.name))
      throw InputError(name_.where(), "case_name",
                       "case name '" + cs.name +
                           "' is not a safe directory name (letters, digits, ._+-=@, only)" + case_desc());
    auto [it, inserted] = names_.emplace(cs.name, plan_.cases.size());
    if (!inserted) {
      const Case& other = plan_.cases[it->second];
      std::string other_desc = describe_other(other);
      throw InputError(name_.where(), "case_name",
                       "duplicate case name '" + cs.name + "' for" + case_desc() + " and" + other_desc +
                           "; add the differing parameter to the name template");
    }
    // Stable key: the step and the matrix coordinates.
    std::string k = step_.name;
    for (auto& a : sp_.axes) {
      k += '\n';
      k += a;
      k += '=';
      k += values[static_cast<size_t>(sc.find(a))].text;
    }
    cs.key = hex64(fnv1a64(k));
    cs.values = values;
    plan_.node_hours += static_cast<double>(cs.nodes) * static_cast<double>(cs.walltime_s) / 3600.0;
    plan_.cases.push_back(std::move(cs));
  }

  std::string describe_other(const Case& other) const {
    bool current = other.step >= plan_.steps.size();  // this step is not in the plan yet
    const auto& axes = current ? sp_.axes : plan_.steps[other.step].axes;
    const Schema& sc = current ? *schema_ : *plan_.steps[other.step].schema;
    std::vector<std::string> parts;
    for (auto& a : axes) parts.push_back(a + "=" + other.values[static_cast<size_t>(sc.find(a))].text);
    return " (case " + join(parts, ", ") + ", step " + (current ? sp_.name : plan_.steps[other.step].name) +
           ")";
  }

  void iterate() {
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

  Plan& plan_;
  const spec::Campaign& c_;
  const spec::System& sys_;
  const spec::Step& step_;
  std::unordered_map<std::string, size_t>& names_;
  StepPlan sp_;
  spec::Matrix mx_;
  std::vector<spec::Derived> derived_;
  bool own_matrix_ = false;
  size_t campaign_derived_ = 0;
  std::string prefix_;
  std::shared_ptr<Schema> schema_;
  size_t user_names_ = 0;
  std::vector<Value> base_;
  std::vector<double> nums_;
  std::vector<Expression> derived_exprs_;
  std::vector<size_t> derived_slots_;
  NumberField ranks_, nodes_, rpn_, cpr_, gpr_;
  TextTemplate partition_, walltime_, name_;
  std::vector<std::vector<std::pair<size_t, std::vector<std::string>>>> excludes_;
  std::vector<Dim> dims_;
  std::unordered_map<std::string, size_t> partition_cache_;
  std::unordered_map<std::string, long> walltime_cache_;
};

// Links each case to the cases of the steps it waits for that agree on every
// matrix axis the two steps share.
void link_dependencies(Plan& plan) {
  for (size_t si = 0; si < plan.steps.size(); ++si) {
    StepPlan& sp = plan.steps[si];
    const spec::Step& step = plan.campaign.steps[sp.step];
    for (auto& dep_name : step.after) {
      size_t dj = plan.steps.size();
      for (size_t j = 0; j < si; ++j)
        if (plan.steps[j].name == dep_name) dj = j;
      if (dj == plan.steps.size()) continue;  // a disabled step: nothing to wait for
      sp.after_steps.push_back(dj);
      const StepPlan& dep = plan.steps[dj];
      std::vector<std::string> shared;
      for (auto& a : sp.axes)
        if (std::find(dep.axes.begin(), dep.axes.end(), a) != dep.axes.end()) shared.push_back(a);
      auto key_of = [&](const StepPlan& s, const Case& c) {
        std::string k;
        for (auto& a : shared) k += c.values[static_cast<size_t>(s.schema->find(a))].text + '\x1f';
        return k;
      };
      std::unordered_map<std::string, std::vector<size_t>> by_key;
      for (size_t ci = dep.first_case; ci < dep.first_case + dep.case_count; ++ci)
        by_key[key_of(dep, plan.cases[ci])].push_back(ci);
      for (size_t ci = sp.first_case; ci < sp.first_case + sp.case_count; ++ci) {
        Case& c = plan.cases[ci];
        auto it = by_key.find(key_of(sp, c));
        if (it != by_key.end()) c.after.insert(c.after.end(), it->second.begin(), it->second.end());
      }
    }
  }
}

}  // namespace

Plan expand(const spec::Campaign& campaign, const spec::System& system, const std::string& workdir) {
  Plan plan;
  plan.workdir = workdir;
  plan.campaign = campaign;
  plan.system = system;
  std::unordered_map<std::string, size_t> names;
  for (size_t i : order_steps(plan.campaign)) StepExpander(plan, i, names).run();
  link_dependencies(plan);
  return plan;
}

}  // namespace campaign::matrix
