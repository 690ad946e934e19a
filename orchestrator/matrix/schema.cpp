// The schema of a step: every name its templates and expressions may use, one
// slot each, and the base values of the slots that do not vary by case.
//
// Invariant: a name has one owner (a parameter, an axis, an attribute, a
// derived value or the job's geometry), and an attribute missing from a value
// of its axis has a constant to fall back on.
#include <limits>
#include <memory>

#include "matrix/step_expander.hpp"

namespace campaign::matrix {

using spec::Value;

// Adds the axes and their attributes to the schema; returns which axis owns each name.
std::unordered_map<std::string, std::string> StepExpander::add_axes(Schema& sc) {
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
  return owner;
}

// A step with its own matrix keeps only the campaign's derived values it can
// compute (a staging step has no `ranks`); anything using a dropped one fails
// later as an undefined name.
void StepExpander::keep_computable_derived(const Schema& sc) {
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

// Slots in this order: constants and params, axes and their attributes,
// repeat, derived values, then the job's geometry. The order is what an
// expression may see (visible()): a derived value sees the names before it,
// and no user-defined name can depend on the geometry.
void StepExpander::build_schema() {
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
  auto owner = add_axes(sc);
  if (mx_.repeat > 1) {
    if (sc.find("repeat") >= 0 && owner.count("repeat"))
      throw InputError(mx_.repeat_where, "matrix.repeat", "an axis or attribute is already called 'repeat'");
    sc.add("repeat");
    sp_.axes.push_back("repeat");
  }
  if (own_matrix_) keep_computable_derived(sc);
  for (auto& d : derived_) {
    if (owner.count(d.name))
      throw InputError(d.where, "derived." + d.name,
                       "'" + d.name + "' is already a matrix axis or attribute");
    sc.add(d.name);
  }
  user_names_ = sc.names.size();
  for (const char* n : {"ranks", "nodes", "ranks_per_node", "cpus_per_rank", "gpus_per_rank", "partition",
                        "instances", "instance"})
    sc.add(n);
  base_.resize(sc.names.size());
  nums_.assign(sc.names.size(), std::numeric_limits<double>::quiet_NaN());
  schema_ = schema;
  sp_.schema = schema;
}

}  // namespace campaign::matrix
