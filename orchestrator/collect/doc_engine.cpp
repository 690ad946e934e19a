// The json and yaml engines: values by path from a document the job wrote
// (the config it ran with, a results summary): `data.n_train`,
// `history.loss[3]`. A number (or boolean, as 0/1) gives one metric without
// a step; a list of numbers gives steps 0..n-1.
//
// Policy: the document is the job's own record, so anything unexpected in a
// required value - a malformed document (line and column named), binary data,
// a missing key (with a did-you-mean over the keys that are there), a string
// or null where a number belongs - is an error. `optional: true` values that
// are missing are skipped; NaN/inf are dropped with a warning.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "collect/engines.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const Input& in, int line, int column, std::string reason) {
  throw CollectError(Location{in.name, line, column}, std::move(reason));
}

void check_text(const Input& in, const char* kind) {
  if (trim_view(in.text).empty()) fail(in, 0, 0, "empty file");
  if (const void* nul = std::memchr(in.text.data(), '\0', in.text.size()))
    fail(in, 0, 0,
         "binary data (NUL byte at offset " + std::to_string(static_cast<const char*>(nul) - in.text.data()) +
             "), not a " + kind + " document");
}

bool is_index(const std::string& key) { return key.size() > 2 && key.front() == '[' && key.back() == ']'; }
bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}
size_t index_of(const std::string& key) {
  std::string_view digits = is_index(key) ? std::string_view(key).substr(1, key.size() - 2) : key;
  return digits.size() > 9 ? SIZE_MAX : std::stoul(std::string(digits));
}

// Appends metrics for one resolved value; `numbers` are the scalars read from it.
void emit(const DocValue& v, const Input& in, const std::vector<double>& numbers, bool list, Output& out) {
  for (size_t i = 0; i < numbers.size(); ++i) {
    double x = numbers[i] * v.scale;
    if (!std::isfinite(x)) {
      std::string what = v.path;
      if (list) what.append("[").append(std::to_string(i)).append("]");
      out.warnings.add(in.name, 0, what + " is not finite; skipped");
      continue;
    }
    out.metrics.push_back(
        Metric{v.name, list ? std::optional<double>(static_cast<double>(i)) : std::nullopt, x, v.unit});
  }
}

// ---- json

std::optional<double> json_number(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_boolean()) return j.get<bool>() ? 1.0 : 0.0;
  return std::nullopt;
}

std::string json_kind(const json& j) {
  if (j.is_null()) return "null";
  if (j.is_string()) return "the string " + preview(j.get_ref<const std::string&>());
  return std::string("a ") + j.type_name();
}

std::vector<std::string> json_keys(const json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

}  // namespace

void run_json(const DocSpec& spec, const Input& in, Output& out) {
  check_text(in, "JSON");
  json doc;
  try {
    doc = json::parse(in.text.begin(), in.text.end());
  } catch (const json::parse_error& e) {
    // e.byte is 1-based; turn it into line:column.
    size_t byte = std::min<size_t>(e.byte ? e.byte - 1 : 0, in.text.size());
    std::string_view before = in.text.substr(0, byte);
    int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    size_t nl = before.rfind('\n');
    int column = static_cast<int>(nl == std::string_view::npos ? byte + 1 : byte - nl);
    // "[json.exception.parse_error.101] parse error at line 6, column 1: syntax error ...": keep the last
    // part.
    std::string_view what = e.what();
    if (auto p = what.find("] "); p != std::string_view::npos) what.remove_prefix(p + 2);
    if (what.rfind("parse error", 0) == 0)
      if (auto p = what.find(": "); p != std::string_view::npos) what.remove_prefix(p + 2);
    fail(in, line, column, "malformed JSON: " + std::string(what.substr(0, 160)));
  } catch (const json::exception& e) {
    fail(in, 0, 0, std::string("malformed JSON: ") + e.what());
  }

  for (const DocValue& v : spec.values) {
    const json* node = &doc;
    std::string walked;
    bool missing = false;
    for (const std::string& key : v.keys) {
      std::string where = walked.empty() ? "the document" : "'" + walked + "'";
      if (node->is_object() && !is_index(key)) {
        auto it = node->find(key);
        if (it == node->end()) {
          if (v.optional) {
            missing = true;
            break;
          }
          fail(in, 0, 0, v.path + ": no key '" + key + "' in " + where + did_you_mean(key, json_keys(*node)));
        }
        node = &*it;
      } else if (node->is_array() && (is_index(key) || all_digits(key))) {
        size_t i = index_of(key);
        if (i >= node->size()) {
          if (v.optional) {
            missing = true;
            break;
          }
          fail(in, 0, 0,
               v.path + ": index " + key + " out of range, " + where + " has " +
                   std::to_string(node->size()) + " elements");
        }
        node = &(*node)[i];
      } else {
        fail(in, 0, 0, v.path + ": " + where + " is " + json_kind(*node) + ", it has no '" + key + "'");
      }
      walked += (walked.empty() || is_index(key) ? "" : ".") + key;
    }
    if (missing) continue;

    std::vector<double> numbers;
    if (auto x = json_number(*node)) {
      emit(v, in, {*x}, false, out);
      continue;
    }
    if (!node->is_array()) fail(in, 0, 0, v.path + " is " + json_kind(*node) + ", not a number");
    for (size_t i = 0; i < node->size(); ++i) {
      auto x = json_number((*node)[i]);
      if (!x)
        fail(in, 0, 0, v.path + "[" + std::to_string(i) + "] is " + json_kind((*node)[i]) + ", not a number");
      numbers.push_back(*x);
    }
    emit(v, in, numbers, true, out);
  }
}

// ---- yaml

namespace {

Location mark_of(const Input& in, const YAML::Mark& m) {
  return Location{in.name, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

// A plain scalar that is a number or a YAML 1.2 boolean; quoted scalars are strings.
std::optional<double> yaml_number(const YAML::Node& n) {
  if (!n.IsScalar() || n.Tag() == "!") return std::nullopt;
  const std::string& s = n.Scalar();
  if (s == "true" || s == "True" || s == "TRUE") return 1.0;
  if (s == "false" || s == "False" || s == "FALSE") return 0.0;
  if (s == ".inf" || s == ".Inf" || s == "+.inf") return INFINITY;
  if (s == "-.inf" || s == "-.Inf") return -INFINITY;
  if (s == ".nan" || s == ".NaN") return NAN;
  return parse_number(s);
}

std::string yaml_kind(const YAML::Node& n) {
  if (n.IsNull()) return "null";
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  return "the string " + preview(n.Scalar());
}

}  // namespace

void run_yaml(const DocSpec& spec, const Input& in, Output& out) {
  check_text(in, "YAML");
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(in.text));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    throw CollectError(mark_of(in, e.mark),
                       "malformed YAML: nested deeper than " + std::to_string(e.depth()) + " levels");
  } catch (const YAML::Exception& e) {
    throw CollectError(mark_of(in, e.mark), "malformed YAML: " + e.msg);
  }

  for (const DocValue& v : spec.values) {
    // Nodes are handles: assigning to one writes through, and assigning a missing
    // (zombie) one throws - so each step is copy-constructed into its own Node.
    std::vector<YAML::Node> chain{doc};
    std::string walked;
    bool missing = false;
    for (const std::string& key : v.keys) {
      const YAML::Node& cur = chain.back();
      std::string where = walked.empty() ? "the document" : "'" + walked + "'";
      if (cur.IsMap() && !is_index(key)) {
        YAML::Node found = cur[key];
        if (!found.IsDefined()) {
          if (v.optional) {
            missing = true;
            break;
          }
          std::vector<std::string> keys;
          for (const auto& kv : cur)
            if (kv.first.IsScalar()) keys.push_back(kv.first.Scalar());
          throw CollectError(mark_of(in, cur.Mark()),
                             v.path + ": no key '" + key + "' in " + where + did_you_mean(key, keys));
        }
        chain.push_back(found);
      } else if (cur.IsSequence() && (is_index(key) || all_digits(key))) {
        size_t i = index_of(key);
        if (i >= cur.size()) {
          if (v.optional) {
            missing = true;
            break;
          }
          throw CollectError(mark_of(in, cur.Mark()), v.path + ": index " + key + " out of range, " + where +
                                                          " has " + std::to_string(cur.size()) + " elements");
        }
        chain.push_back(cur[i]);
      } else {
        throw CollectError(mark_of(in, cur.Mark()),
                           v.path + ": " + where + " is " + yaml_kind(cur) + ", it has no '" + key + "'");
      }
      walked += (walked.empty() || is_index(key) ? "" : ".") + key;
    }
    if (missing) continue;
    const YAML::Node& leaf = chain.back();

    if (auto x = yaml_number(leaf)) {
      emit(v, in, {*x}, false, out);
      continue;
    }
    if (!leaf.IsSequence())
      throw CollectError(mark_of(in, leaf.Mark()), v.path + " is " + yaml_kind(leaf) + ", not a number");
    std::vector<double> numbers;
    for (size_t i = 0; i < leaf.size(); ++i) {
      auto x = yaml_number(leaf[i]);
      if (!x)
        throw CollectError(mark_of(in, leaf[i].Mark()), v.path + "[" + std::to_string(i) + "] is " +
                                                            yaml_kind(leaf[i]) + ", not a number");
      numbers.push_back(*x);
    }
    emit(v, in, numbers, true, out);
  }
}

}  // namespace campaign::collect
