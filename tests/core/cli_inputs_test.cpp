// Nothing from a scenario chooses where files go, and bad numbers or names are exit 2 with
// nothing written: the hardening rules as a user meets them through the geotrain executable.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace cli_inputs_test {

namespace fs = std::filesystem;

namespace {

using Run = geotrain::test::ShellRun;

// geotrain with arguments (and optional VAR=value environment), stdout and stderr together.
Run run(const std::string& args, const std::string& env = "") {
  return geotrain::test::sh(env + " " + std::string(GEOTRAIN_BINARY) + " " + args);
}

// A fresh folder of this test: <tmp>/geotrain_inputs_<pid>/work, with work/ the directory the
// scenario and the results root live in, so that anything escaping lands in its parent.
struct Sandbox {
  fs::path top = fs::temp_directory_path() / ("geotrain_inputs_" + std::to_string(::getpid()));
  fs::path work = top / "work";
  Sandbox() {
    fs::remove_all(top);
    fs::create_directories(work);
  }
  ~Sandbox() { fs::remove_all(top); }
  std::string scenario(const std::string& file, const std::string& first_lines) const {
    std::ofstream(work / file)
        << first_lines
        << "devices: {count: 4, regions: [Oregon, Tokyo]}\n"
           "network:\n  regions:\n    intra: {delay: 5ms, bandwidth: 1Gbps}\n"
           "model: {preset: gpt-tiny}\nstrategy: {name: ddp-allreduce}\n";
    return (work / file).string();
  }
  std::size_t entries() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(top)) ++n;
    return n;
  }
};

}  // namespace

TEST_CASE("a name that climbs out of results/ is refused before anything is written",
          "[cli][errors]") {
  Sandbox box;
  const std::string file = box.scenario("pwn.yaml", "name: ../../x\n");
  const std::string results = (box.work / "results").string();
  const Run r = run("simulate " + file + " --results " + results);
  CHECK(r.status == 2);
  CHECK(r.out == file +
                     ":1: name = '../../x': holds '/', which a name may not (expected 1 to 64 "
                     "characters of A-Z a-z 0-9 . _ -, not starting with '.')\n");
  CHECK(box.entries() == 2);  // work/ and pwn.yaml: no results/, no x/
  // The same name through --set.
  const std::string plain = box.scenario("plain.yaml", "");
  const Run s = run("simulate " + plain + " --results " + results + " --set name=../../x");
  CHECK(s.status == 2);
  CHECK(s.out.find(": name = '../../x': holds '/', which a name may not") != std::string::npos);
  CHECK(box.entries() == 3);
}

TEST_CASE("a results folder that is a symlink out of the results root is refused",
          "[cli][errors]") {
  Sandbox box;
  fs::create_directories(box.top / "outside");
  fs::create_directories(box.work / "results");
  fs::create_directory_symlink(box.top / "outside", box.work / "results" / "escape");
  const std::string file = box.scenario("escape.yaml", "name: escape\n");
  const Run r = run("simulate " + file + " --results " + (box.work / "results").string());
  CHECK(r.status == 2);
  CHECK(r.out.find("name = 'escape/sim': the path ") != std::string::npos);
  CHECK(fs::is_empty(box.top / "outside"));
}

TEST_CASE("a right-to-left override in the name is refused and shown escaped", "[cli][errors]") {
  Sandbox box;
  const std::string file = box.scenario("rlo.yaml", "name: report\xE2\x80\xAEtxt.yaml\n");
  const Run r = run("check " + file);
  CHECK(r.status == 2);
  CHECK(r.out == file +
                     ":1: name = 'report\\u{202E}txt.yaml': holds the control or bidirectional "
                     "character U+202E (expected printable text)\n");
}

TEST_CASE("without name: the file stem is made into a valid name", "[cli]") {
  Sandbox box;
  const std::string file = box.scenario("my run (2).yaml", "");
  const Run r = run("check '" + file + "'");
  CHECK(r.status == 0);
  CHECK(r.out.find("scenario   my_run__2_ (") != std::string::npos);
}

TEST_CASE("work that cannot fit is refused up front with the estimate", "[cli][errors][memory]") {
  const std::string case5 = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/paper/dtfm_case5.yaml";
  const Run r = run("check " + case5, "GEOTRAIN_MEMORY_LIMIT=1MiB");
  CHECK(r.status == 2);
  CHECK(r.out.find("dtfm_case5.yaml:") != std::string::npos);
  CHECK(r.out.find(": devices.count = '64': this run needs an estimated ") != std::string::npos);
  CHECK(r.out.find("more than the 0.00098 GiB allowed by GEOTRAIN_MEMORY_LIMIT\n") !=
        std::string::npos);
  CHECK(run("check " + case5, "GEOTRAIN_MEMORY_LIMIT=lots").status == 2);
  CHECK(run("check " + case5, "GEOTRAIN_MEMORY_LIMIT=16GiB").status == 0);
}

TEST_CASE("numeric flags have ranges too", "[cli][errors]") {
  const std::string case5 = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/paper/dtfm_case5.yaml";
  CHECK(run("simulate " + case5 + " --iterations 0").status == 2);
  CHECK(run("simulate " + case5 + " --iterations 1e300").status == 2);
  CHECK(run("schedule " + case5 + " --population 1").status == 2);
  CHECK(run("schedule " + case5 + " --threads 0").status == 2);
  CHECK(run("schedule " + case5 + " --seed -1").status == 2);
  CHECK(run("check " + case5 + " --set network.tcp_buffer=0B").status == 2);
  CHECK(run("check " + case5 + " --set network.tcp_buffer=1448B").status == 0);
}

}  // namespace cli_inputs_test
