#pragma once
// Applies a BandwidthPlan (emu/net/bandwidth_plan.hpp) during a run: a thread waits until the
// first worker starts its first op (the progress blocks, polled every millisecond; that moment
// is t = 0 of network.bandwidth_changes, as simulated time 0 is for the simulator), then at each
// planned time re-rates the classes with one `tc -n NS -batch -` per namespace. stop() (also
// the destructor, so errors and Ctrl-C unwind through it) ends the thread and puts every
// class back at its configured rate, so a borrowed cluster is left as it was; on an owned
// cluster the namespaces go away after it anyway.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu/net/bandwidth_plan.hpp"

namespace geotrain::emu {

struct AppliedChange {
  TimedChange change;
  std::string netns;
  double applied_s = -1;  // seconds after training started when tc returned; -1: not applied
  std::string status;     // "applied", "not reached (the run ended first)", or the tc error
};

class BandwidthChanger {
 public:
  BandwidthChanger(BandwidthPlan plan, std::vector<std::string> progress_paths);
  ~BandwidthChanger();
  BandwidthChanger(const BandwidthChanger&) = delete;
  BandwidthChanger& operator=(const BandwidthChanger&) = delete;

  void start();  // after the workers started (their progress files exist)
  void stop();   // idempotent
  // After stop(): one record per planned change, in plan order.
  const std::vector<AppliedChange>& records() const { return records_; }
  // The first tc failure ("" if none).
  std::string failure() const;
  // After stop(), once the measurements say when training ended (seconds after its first op
  // started): a change applied after that moment had no effect on any step, so it is recorded
  // as not reached, like one the run never got to. Returns how many changes were not reached.
  std::size_t settle(double training_end_s);

 private:
  void run();
  bool wait_for_training();  // false when stopped first
  void apply_at(std::size_t first, std::size_t end);

  BandwidthPlan plan_;
  std::vector<std::string> progress_paths_;
  std::vector<AppliedChange> records_;
  std::chrono::steady_clock::time_point t0_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool stopped_ = false;
  bool applied_any_ = false;
};

// <run>/bandwidth_changes.csv: planned_s,applied_s,src,dst,netns,factor,rate_bit_s,status
std::string bandwidth_changes_csv(const std::vector<AppliedChange>& records);

}  // namespace geotrain::emu
