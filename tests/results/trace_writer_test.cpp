// trace.json (sim/results/trace_writer.hpp): known bytes for a hand-built Program.
#include "sim/results/trace_writer.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/results/tiny_program.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace trace_writer_test {

using namespace geotrain;
using results::OpRow;

namespace {
const std::string kHead =
    "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"rank 0 (device 3)\"}},\n"
    "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"ops\"}},\n"
    "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 1, \"args\": {\"name\": \"in flight\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"rank 1 (device 5)\"}},\n"
    "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"ops\"}},\n"
    "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"in flight\"}}";
}

TEST_CASE("trace events with exact times carry idle_s", "[results]") {
  const Program p = test::tiny_program();
  std::ostringstream out;
  results::TraceWriter w(out, p, results::TimeFormat::shortest);
  w.add(OpRow{0, 1, 1, 0.5, 1.25, 0.125, 4096.0});
  w.finish();
  CHECK(out.str() == kHead +
                         ",\n{\"ph\": \"X\", \"name\": \"say \\\"hi\\\", x\", \"cat\": \"send\", \"pid\": 0, "
                         "\"tid\": 1, \"ts\": 500000, \"dur\": 750000, \"args\": {\"iteration\": 1, \"op\": 1, "
                         "\"bytes_sent\": 4096, \"idle_s\": 0.125}}\n]}\n");
  CHECK_NOTHROW(nlohmann::json::parse(out.str()));
}

TEST_CASE("trace events with measured times: no idle_s, uncounted bytes are null", "[results]") {
  const Program p = test::tiny_program();
  std::ostringstream out;
  results::TraceWriter w(out, p, results::TimeFormat::nanoseconds);
  w.add(OpRow{1, 0, 2, 1.25, 2.0, std::nullopt, std::nullopt});
  w.finish();
  CHECK(out.str() == kHead +
                         ",\n{\"ph\": \"X\", \"name\": \"allreduce\", \"cat\": \"collective\", \"pid\": 1, "
                         "\"tid\": 0, \"ts\": 1250000.000, \"dur\": 750000.000, \"args\": {\"iteration\": 0, "
                         "\"op\": 2, \"bytes_sent\": null}}\n]}\n");
  CHECK_NOTHROW(nlohmann::json::parse(out.str()));
}

TEST_CASE("a trace without op events is still valid JSON", "[results]") {
  const Program p = test::tiny_program();
  std::ostringstream out;
  results::TraceWriter(out, p, results::TimeFormat::shortest).finish();
  CHECK(out.str() == kHead + "\n]}\n");
  CHECK(nlohmann::json::parse(out.str())["traceEvents"].size() == 6);
}

}  // namespace trace_writer_test
