#include "resource/detect.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "../temp_dir.hpp"

using namespace campaign::resource;

namespace {
const char* kSmi =
    "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5f2c0c7e-aaaa-bbbb-cccc-000000000000)\n"
    "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-71d3e9a1-aaaa-bbbb-cccc-111111111111)\n"
    "  MIG 1g.10gb     Device  0: (UUID: MIG-0b5c0000-aaaa-bbbb-cccc-222222222222)\n"
    "GPU 2: NVIDIA H100 80GB HBM3 (UUID: GPU-9a0e11b2-aaaa-bbbb-cccc-333333333333)\n";

// Sets an environment variable for one scope.
struct Env {
  std::string name;
  std::optional<std::string> old;
  Env(std::string n, const std::optional<std::string>& value) : name(std::move(n)) {
    if (const char* o = std::getenv(name.c_str())) old = o;
    if (value)
      ::setenv(name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
  ~Env() {
    if (old)
      ::setenv(name.c_str(), old->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};
}  // namespace

TEST_CASE("nvidia-smi -L: every GPU by index, MIG lines aside", "[resource]") {
  CHECK(nvidia_ids(kSmi, false, "") == std::vector<std::string>{"0", "1", "2"});
  CHECK(nvidia_ids("", false, "").empty());
  CHECK(nvidia_ids("No devices were found\n", false, "").empty());
}

TEST_CASE("CUDA_VISIBLE_DEVICES narrows the GPUs, by index or UUID, in its order", "[resource]") {
  CHECK(nvidia_ids(kSmi, true, "2,0") == std::vector<std::string>{"2", "0"});
  CHECK(nvidia_ids(kSmi, true, "GPU-71d3e9a1-aaaa-bbbb-cccc-111111111111") ==
        std::vector<std::string>{"GPU-71d3e9a1-aaaa-bbbb-cccc-111111111111"});
  CHECK(nvidia_ids(kSmi, true, "GPU-71d3e9a1") == std::vector<std::string>{"GPU-71d3e9a1"});
  CHECK(nvidia_ids(kSmi, true, "").empty());  // set and empty: no GPU
  // CUDA stops at the first entry that names no device.
  CHECK(nvidia_ids(kSmi, true, "1,7,2") == std::vector<std::string>{"1"});
}

TEST_CASE("rocm-smi: GPU[N] tags, narrowed by ROCR_VISIBLE_DEVICES", "[resource]") {
  const char* out =
      "============ ROCm System Management Interface ============\n"
      "GPU[0]\t\t: Device ID: 0x740c\n"
      "GPU[1]\t\t: Device ID: 0x740c\n"
      "GPU[1]\t\t: Device Rev: 0x01\n";
  CHECK(rocm_ids(out, false, "") == std::vector<std::string>{"0", "1"});
  CHECK(rocm_ids(out, true, "1") == std::vector<std::string>{"1"});
}

TEST_CASE("detect_gpus runs the nvidia-smi it finds on the PATH", "[resource]") {
  campaign_test::TempDir dir("detect");
  {
    std::ofstream smi(dir.path / "nvidia-smi");
    smi << "#!/bin/sh\n[ \"$1\" = -L ] || exit 2\ncat <<'X'\n" << kSmi << "X\n";
  }
  std::filesystem::permissions(dir.path / "nvidia-smi", std::filesystem::perms::owner_all);
  Env path("PATH", dir.path.string() + ":/usr/bin:/bin");
  {
    Env cuda("CUDA_VISIBLE_DEVICES", std::nullopt);
    Gpus g = detect_gpus();
    CHECK(g.variable == "CUDA_VISIBLE_DEVICES");
    CHECK(g.ids == std::vector<std::string>{"0", "1", "2"});
  }
  {
    Env cuda("CUDA_VISIBLE_DEVICES", std::string("1"));
    CHECK(detect_gpus().ids == std::vector<std::string>{"1"});
  }
  {
    // A failing nvidia-smi (no driver) is no GPU.
    std::ofstream smi(dir.path / "nvidia-smi");
    smi << "#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n";
  }
  Env cuda("CUDA_VISIBLE_DEVICES", std::nullopt);
  CHECK(detect_gpus().ids.empty());
}

TEST_CASE("usable CPUs and memory of this machine", "[resource]") {
  CHECK_FALSE(usable_cpus().empty());
  CHECK(memory_mb() > 0);
}
