// The four pair operators of a simulation step (neighbour_ops.hpp) handed to a backend's neighbour
// loop, written once for the host (host_kernels.hpp) and the device (kernels_gpu.cu) classes.
// Derived (CRTP) supplies view(), fd(Field), type_ and active_ (with data()) and run(op), its loop
// over the neighbours by the chosen strategy; it names this class a friend.
#pragma once
#include "kernels.hpp"
#include "neighbour_loops.hpp"

namespace mps {

template <class Derived>
class PairOpKernels : public MpsKernels {
 public:
  void velocity_laplacian(double re, double coef) override {
    Derived& d = self();
    d.run(LaplacianOp{d.view(), re, re * re, coef, d.fd(Field::ax), d.fd(Field::ay), d.fd(Field::az)});
  }
  void pressure_gradient(double re, double coef) override {
    Derived& d = self();
    d.run(GradientOp{d.view(), re, re * re, coef, d.fd(Field::ax), d.fd(Field::ay), d.fd(Field::az)});
  }
  void collision(double rc, double e) override {
    Derived& d = self();
    d.run(CollisionOp{d.view(), rc * rc, e, d.fd(Field::ax), d.fd(Field::ay), d.fd(Field::az)});
  }
  void ppe_apply(Field x, Field y, double re, double coef, double diag) override {
    Derived& d = self();
    d.run(PpeOp{d.type_.data(), d.active_.data(), d.fd(x), re, re * re, coef, diag, d.fd(y)});
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace mps
