// Internal to matrix/: expands one step of a campaign into its cases.
//
// The work is split by concern across files: schema.cpp (the names a step
// sees), expand.cpp (matrix dimensions, exclusion, derived values, the case
// loop), geometry.cpp (partition, ranks/nodes/cpus/gpus, walltime and the
// partition's limits) and naming.cpp (case names, their uniqueness, stable
// keys). steps.hpp orders the steps and links their cases.
//
// Invariant: compiled expressions read `nums_`, which holds the numeric value
// of every slot of the case being built; `set()` keeps it in step with the
// case's values, and `nums_` is never resized after compile().
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "matrix/expr.hpp"
#include "matrix/plan.hpp"

namespace campaign::matrix {

struct Dim {
  std::vector<size_t> axes;  // indices into matrix.axes (several for a zip group)
  size_t length = 0;
  bool repeat = false;
};

// A number of the job (ranks, nodes...): an expression, else a user-defined
// parameter of the same name, else unset.
struct NumberField {
  std::optional<Expression> expr;
  int param = -1;
  Location where;
  std::string key;
  // The key's text is "0" itself, or the bare name of a parameter (`bare`): what the user wrote, not
  // what an expression computed.
  bool says_zero = false;
  int bare = -1;
};

class StepExpander {
 public:
  StepExpander(Plan& plan, size_t step_index, std::unordered_map<std::string, size_t>& names);
  void run();

 private:
  using Values = std::vector<spec::Value>;

  // schema.cpp
  void build_schema();
  std::unordered_map<std::string, std::string> add_axes(Schema& sc);
  void keep_computable_derived(const Schema& sc);

  // expand.cpp
  std::vector<std::string> visible(size_t limit) const;
  void compile();
  void compile_derived();
  void compile_excludes();
  void compile_dims();
  void check_numeric(const Expression& e, const Values& values, const std::string& case_hint) const;
  void set(Values& values, size_t slot, double v);
  const std::string& case_desc(const Values& values);
  bool excluded(const Values& values) const;
  void compute_derived(Values& values);
  void make_case(Values& values);
  void iterate();

  // geometry.cpp
  void compile_geometry();
  long integer(double v, const NumberField& f, const std::string& case_desc) const;
  std::optional<double> number_of(const NumberField& f, const Values& values,
                                  const std::string& case_desc) const;
  std::string partition_name(const Values& values) const;
  size_t partition_index(const std::string& pname);
  void count_ranks(Case& cs, const Values& values);
  void share_nodes(Case& cs, const Values& values, const spec::Partition& part);
  void record_geometry(const Case& cs, const std::string& pname, Values& values);
  long walltime_of(const Case& cs, const Values& values);
  void check_walltime(const Case& cs, const spec::Partition& part, const Values& values);
  void check_pack() const;
  void check_array() const;

  // naming.cpp
  void compile_name();
  std::string describe(const Values& values) const;
  std::string describe_other(const Case& other) const;
  std::string name_of(const Values& values);
  std::string key_of(const Values& values) const;

  Plan& plan_;
  const spec::Campaign& c_;
  const spec::System& sys_;
  const spec::Step& step_;
  std::unordered_map<std::string, size_t>& names_;  // case name -> index into plan_.cases
  StepPlan sp_;
  spec::Matrix mx_;
  std::vector<spec::Derived> derived_;
  bool own_matrix_ = false;
  size_t campaign_derived_ = 0;
  std::string prefix_;
  std::shared_ptr<Schema> schema_;
  size_t user_names_ = 0;
  Values base_;
  std::vector<double> nums_;
  std::vector<Expression> derived_exprs_;
  std::vector<size_t> derived_slots_;
  NumberField ranks_, nodes_, rpn_, cpr_, gpr_, instances_;
  TextTemplate partition_, walltime_, name_, memory_, exclusive_;
  std::vector<std::vector<std::pair<size_t, std::vector<std::string>>>> excludes_;
  std::vector<Dim> dims_;
  std::unordered_map<std::string, size_t> partition_cache_;
  std::unordered_map<std::string, long> walltime_cache_;
  std::string desc_;  // of the case being built, made on first use: only errors need it
};

}  // namespace campaign::matrix
