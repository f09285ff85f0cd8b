#include "sim/engine/lane.hpp"

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

std::shared_ptr<Lane> Lane::start(sg4::Host* host, const std::string& name) {
  auto lane = std::make_shared<Lane>();
  lane->pending_ = sg4::Semaphore::create(0);
  sg4::Actor::create(name, host, [lane] { lane->run(); })->daemonize();
  return lane;
}

std::shared_ptr<Completion> Lane::submit(std::function<void()> work) {
  auto done = std::make_shared<Completion>();
  queue_.push_back({std::move(work), done});
  pending_->release();
  return done;
}

void Lane::run() {
  for (;;) {
    pending_->acquire();
    Item item = std::move(queue_.front());
    queue_.pop_front();
    item.work();
    item.done->finish();
  }
}

}  // namespace geotrain::engine
