#include "emu/launch/bandwidth_changer.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "emu/worker/progress_block.hpp"
#include "emu/net/command_batches.hpp"
#include "emu/net/process_runner.hpp"
#include "sim/common/log.hpp"

namespace geotrain::emu {

namespace {

constexpr const char* kChangerLog = "emu.launch";
using Clock = std::chrono::steady_clock;

// Runs commands batched per namespace; "" or the first failure.
std::string run_batched(const std::vector<Command>& commands) {
  std::string failure;
  for (const auto& inv : batch_commands(commands)) {
    const ProcessResult r = run_process(inv.argv, inv.stdin_text);
    if (r.status != 0 && failure.empty())
      failure = fmt::format("{} exited {}: {}", fmt::join(inv.argv, " "), r.status, r.err);
  }
  return failure;
}

}  // namespace

BandwidthChanger::BandwidthChanger(BandwidthPlan plan, std::vector<std::string> progress_paths)
    : plan_(std::move(plan)), progress_paths_(std::move(progress_paths)) {
  for (const auto& c : plan_.changes)
    records_.push_back({c, c.command.netns, -1, "not reached (the run ended first)"});
}

BandwidthChanger::~BandwidthChanger() {
  try {
    stop();
  } catch (const std::exception& e) {
    log::warning(kChangerLog, "bandwidth changes: stopping failed: {}", e.what());
  }
}

void BandwidthChanger::start() {
  if (plan_.changes.empty() || thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void BandwidthChanger::stop() {
  if (stopped_) return;
  stopped_ = true;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (applied_any_) {
    // Best effort: on an owned cluster torn down by a signal the namespaces may be gone already.
    const std::string failure = run_batched(plan_.restore);
    if (!failure.empty()) log::warning(kChangerLog, "bandwidth changes: restoring the rates: {}", failure);
  }
}

std::string BandwidthChanger::failure() const {
  for (const auto& r : records_)
    if (r.applied_s < 0 && r.status.rfind("not reached", 0) != 0) return r.status;
  return "";
}

std::size_t BandwidthChanger::settle(double training_end_s) {
  std::size_t not_reached = 0;
  for (auto& r : records_) {
    if (r.applied_s > training_end_s) {
      r.applied_s = -1;
      r.status = fmt::format("not reached (training ended at {:.3f} s)", training_end_s);
    }
    if (r.status.rfind("not reached", 0) == 0) ++not_reached;
  }
  return not_reached;
}

bool BandwidthChanger::wait_for_training() {
  std::vector<std::unique_ptr<ProgressMap>> maps;
  for (;;) {
    if (maps.size() < progress_paths_.size()) {
      maps.clear();
      for (const auto& p : progress_paths_)
        if (std::filesystem::exists(p)) maps.push_back(std::make_unique<ProgressMap>(p, false));
    }
    for (const auto& m : maps)
      if (m->snapshot().ops_started > 0) return true;
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, std::chrono::milliseconds(1), [this] { return stopping_; })) return false;
  }
}

void BandwidthChanger::apply_at(std::size_t first, std::size_t end) {
  std::vector<Command> commands;
  for (std::size_t i = first; i < end; ++i) commands.push_back(plan_.changes[i].command);
  const std::string failure = run_batched(commands);
  const double applied_s = std::chrono::duration<double>(Clock::now() - t0_).count();
  applied_any_ = true;
  for (std::size_t i = first; i < end; ++i) {
    records_[i].applied_s = failure.empty() ? applied_s : -1;
    records_[i].status = failure.empty() ? "applied" : "failed: " + failure;
  }
  log::info(kChangerLog, "bandwidth: {} class(es) re-rated at {:.3f} s (planned {:.3f} s){}", end - first,
            applied_s, plan_.changes[first].at_s, failure.empty() ? "" : ": " + failure);
}

void BandwidthChanger::run() {
  try {
    if (!wait_for_training()) return;
    t0_ = Clock::now();
    for (std::size_t i = 0; i < plan_.changes.size();) {
      std::size_t end = i;
      while (end < plan_.changes.size() && plan_.changes[end].at_s == plan_.changes[i].at_s) ++end;
      const auto due = t0_ + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(plan_.changes[i].at_s));
      {
        std::unique_lock lock(mutex_);
        if (wake_.wait_until(lock, due, [this] { return stopping_; })) return;
      }
      apply_at(i, end);
      i = end;
    }
  } catch (const std::exception& e) {
    for (auto& r : records_)
      if (r.applied_s < 0 && r.status.rfind("not reached", 0) == 0) r.status = std::string("failed: ") + e.what();
  }
}

std::string bandwidth_changes_csv(const std::vector<AppliedChange>& records) {
  std::string out = "planned_s,applied_s,src,dst,netns,factor,rate_bit_s,status\n";
  for (const auto& r : records)
    out += fmt::format("{:.6f},{},{},{},{},{:.9g},{:.0f},\"{}\"\n", r.change.at_s,
                       r.applied_s < 0 ? std::string() : fmt::format("{:.6f}", r.applied_s), r.change.src,
                       r.change.dst, r.netns, r.change.factor, r.change.rate_Bps * 8, r.status);
  return out;
}

}  // namespace geotrain::emu
