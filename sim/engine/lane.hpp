#pragma once
// A FIFO of communication work: one lane per (rank, destination) for sends and per (rank, group)
// for collectives. Real stacks serialise these (one TCP connection per peer, one communication
// stream per process group); starting them all at once would make them share bandwidth and
// delay every one of them.
//
// A lane's items run on a worker actor of its rank's LanePool, which the lane holds only while
// it has work: a lane that runs dry hands its worker back, and the next lane of that rank to get
// work takes it. Lanes busy at the same time each have their own worker, so every lane still
// starts an item as soon as the one before it is done and the item was submitted; lanes that
// are never busy together (gpipe's sends to the next stage, then to the previous one) share one
// actor. Actors are what a large run pays for (a stack's touched pages, its creation).
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

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

class Lane;

// The worker actors of one rank (daemons: they end with the simulation), all on its host.
class LanePool {
 public:
  LanePool(simgrid::s4u::Host* host, std::string name);
  LanePool(const LanePool&) = delete;
  LanePool& operator=(const LanePool&) = delete;

 private:
  friend class Lane;
  struct Worker {
    Lane* lane = nullptr;
    simgrid::s4u::SemaphorePtr wake;
  };
  // `lane` has work and no worker: an idle worker (or a new one) drains it.
  void activate(Lane& lane);
  void run(Worker& worker);

  simgrid::s4u::Host* host_;
  std::string name_;
  std::deque<Worker> workers_;  // stable addresses
  std::vector<Worker*> idle_;
};

class Lane {
 public:
  explicit Lane(LanePool& pool) : pool_(pool) {}
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  std::shared_ptr<Completion> submit(std::function<void()> work);
  // Work that runs without an actor once started (a hub transfer, p2p_hub.hpp): `start` begins
  // it and returns its completion. On an idle lane it starts now, in the caller, and items
  // submitted later wait for it; otherwise it is queued (started when its turn comes, the
  // worker waiting for it). Saves an actor per transfer: a parameter server's tens of
  // thousands of pulls in flight at once.
  std::shared_ptr<Completion> start_or_submit(const std::function<std::shared_ptr<Completion>()>& start);

 private:
  friend class LanePool;
  struct Item {
    std::function<void()> work;
    std::shared_ptr<Completion> done;
  };
  LanePool& pool_;
  std::deque<Item> queue_;
  bool active_ = false;  // a worker is draining this lane
  std::shared_ptr<Completion> external_;  // work started outside a worker, still running
};

}  // namespace geotrain::engine
