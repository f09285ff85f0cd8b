#pragma once
// One visitor from several lambdas: std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}},
// v). With no catch-all lambda, a variant alternative nobody handles is a compile error, which is
// the point for closed variants such as DynamicRule.

namespace geotrain {

template <typename... Handlers>
struct Overloaded : Handlers... {
  using Handlers::operator()...;
};
template <typename... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;

}  // namespace geotrain
