#include "sim/engine/rendezvous.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

Rendezvous::Queue& Rendezvous::queue(Kind kind, int src, int dst, int key) {
  const std::tuple<int, int, int, int> k{kind, src, dst, key};
  auto it = queues_.find(k);
  if (it == queues_.end()) {
    // Semaphore::create is not a simcall: nothing else runs between find and emplace.
    Queue q;
    q.available = sg4::Semaphore::create(0);
    it = queues_.emplace(k, std::move(q)).first;
  }
  return it->second;
}

void Rendezvous::post_ready(Kind kind, int src, int dst, int key, double ready_at_s) {
  Queue& q = queue(kind, src, dst, key);
  q.ready_at_s.push_back(ready_at_s);
  q.available->release();
}

void Rendezvous::wait_ready(Kind kind, int src, int dst, int key) {
  auto available = queue(kind, src, dst, key).available;  // acquire() may let other actors run
  available->acquire();
  Queue& q = queue(kind, src, dst, key);
  const double at = q.ready_at_s.front();
  q.ready_at_s.pop_front();
  if (at > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(at);
}

}  // namespace geotrain::engine
