#pragma once
// Gloo's send/recv rendezvous (simulation.rendezvous): a send moves data only after the
// receiver's "ready to receive" notice has crossed the network, i.e. at
//   max(send posted, receive posted + one-way delay receiver -> sender).
// Measured on the emulator (docs/simulator-models.md): a ring step costs one extra one-way delay.
//
// The notice is a time stamp, not a SimGrid message: a SimGrid transfer starts only once both
// sides posted, so a message would leave when the sender asks for it, not when the receiver
// sent it. Notices match sends in FIFO order per (kind, src, dst, key), like the data itself.
#include <simgrid/s4u/Semaphore.hpp>

#include <deque>
#include <map>
#include <tuple>

namespace geotrain::engine {

class Rendezvous {
 public:
  enum Kind { p2p = 0, collective = 1 };

  // The receiver `dst` posted a receive from `src`; the notice reaches `src` at ready_at_s.
  void post_ready(Kind kind, int src, int dst, int key, double ready_at_s);
  // Called by the sender `src` before it sends to `dst`: blocks (in simulated time) until the
  // matching notice has arrived.
  void wait_ready(Kind kind, int src, int dst, int key);

 private:
  struct Queue {
    std::deque<double> ready_at_s;
    simgrid::s4u::SemaphorePtr available;
  };
  Queue& queue(Kind kind, int src, int dst, int key);

  std::map<std::tuple<int, int, int, int>, Queue> queues_;
};

}  // namespace geotrain::engine
