#pragma once
// A FIFO of communication work run by its own actor: one lane per (rank, destination) for sends
// and per (rank, group) for collectives. Real stacks serialise these (one TCP connection per
// peer, one communication stream per process group); starting them all at once would make them
// share bandwidth and delay every one of them.
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include <simgrid/s4u/Semaphore.hpp>

namespace simgrid::s4u {
class Host;
}

namespace geotrain::engine {

// Completion of one queued item; any number of actors may wait for it.
class Completion {
 public:
  Completion();
  void finish();
  void wait();
  bool done() const { return done_; }

 private:
  bool done_ = false;
  simgrid::s4u::SemaphorePtr signal_;
};

class Lane {
 public:
  // Starts the lane's actor (a daemon: it ends with the simulation) on `host`.
  static std::shared_ptr<Lane> start(simgrid::s4u::Host* host, const std::string& name);

  std::shared_ptr<Completion> submit(std::function<void()> work);

 private:
  void run();

  struct Item {
    std::function<void()> work;
    std::shared_ptr<Completion> done;
  };
  std::deque<Item> queue_;
  simgrid::s4u::SemaphorePtr pending_;
};

}  // namespace geotrain::engine
