#include "sim/engine/lane.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

// The semaphore exists only once someone waits before the work is done (most nonblocking sends
// are done by the time their Wait comes): Semaphore::create allocates, release is a simcall.
// Semaphore::create is not a simcall, so no other actor runs between the test and the store.
Completion::Completion() = default;

void Completion::finish() {
  done_ = true;
  if (signal_) signal_->release();
}

void Completion::wait() {
  if (done_) return;
  if (!signal_) signal_ = sg4::Semaphore::create(0);
  // Pass the token on so that every waiter wakes up.
  signal_->acquire();
  signal_->release();
}

LanePool::LanePool(sg4::Host* host, std::string name) : host_(host), name_(std::move(name)) {}

void LanePool::activate(Lane& lane) {
  Worker* worker = nullptr;
  if (!idle_.empty()) {
    worker = idle_.back();
    idle_.pop_back();
  } else {
    worker = &workers_.emplace_back();
    worker->wake = sg4::Semaphore::create(0);
    // Actor::create yields: the new worker waits on `wake` until it is given the lane below.
    sg4::Actor::create(fmt::format("{} lane worker {}", name_, workers_.size() - 1), host_,
                       // `wake` owned by the actor too: it outlives the pool if the daemon does
                       [this, worker, wake = worker->wake] {
                         (void)wake;
                         run(*worker);
                       })
        ->daemonize();
  }
  worker->lane = &lane;
  worker->wake->release();
}

void LanePool::run(Worker& worker) {
  for (;;) {
    worker.wake->acquire();
    Lane& lane = *worker.lane;
    // Items submitted while one runs join the queue; the lane is let go only once it is empty
    // (nothing yields between that test and the release).
    while (!lane.queue_.empty()) {
      if (auto ext = std::move(lane.external_)) ext->wait();  // FIFO after work started outside
      Lane::Item item = std::move(lane.queue_.front());
      lane.queue_.pop_front();
      item.work();
      item.done->finish();
    }
    lane.active_ = false;
    worker.lane = nullptr;
    idle_.push_back(&worker);
  }
}

std::shared_ptr<Completion> Lane::submit(std::function<void()> work) {
  auto done = std::make_shared<Completion>();
  queue_.push_back({std::move(work), done});
  if (!active_) {
    active_ = true;
    pool_.activate(*this);
  }
  return done;
}

std::shared_ptr<Completion> Lane::start_or_submit(const std::function<std::shared_ptr<Completion>()>& start) {
  if (!active_ && queue_.empty() && (!external_ || external_->done())) {
    external_ = start();
    return external_;
  }
  return submit([start] { start()->wait(); });
}

}  // namespace geotrain::engine
