#pragma once
// The coefficients of the order-4 and order-5 members in long double, as published (rationals
// and closed forms in sqrt(2)), for Tableau::esdirk436() / esdirk547() (rounded to double) and
// for the extended-precision check of their order conditions (tests/core/test_tableau.cpp).
//
// Kennedy & Carpenter, "Diagonally implicit Runge-Kutta methods for ordinary differential
// equations. A review", NASA/TM-2016-219173: ESDIRK4(3)6L[2]SA (section 5.2.3, table 16 in
// closed form) and ESDIRK5(4)7L[2]SA (section 6.2.3, rationals). Both: explicit first stage,
// gamma on the diagonal, stage order 2 (a21 = gamma), stiffly accurate, L-stable, with an
// embedded method one order lower. The first column follows from a_i1 = c_i - sum_{j>1} a_ij and
// b_1 = 1 - sum_{j>1} b_j (as published). Transcribed from SUNDIALS' ARKODE tables
// (ARKODE_ESDIRK436L2SA_6_3_4, ARKODE_ESDIRK547L2SA_7_4_5) and compared with the values of
// the SUNDIALS 6.4 library to the last bit of double (doc/integrator-theory.md, section 1a).

#include <cmath>
#include <vector>

namespace esdirk::internal {

struct LongTableau {
  int stages = 0;
  std::vector<long double> a, b, b_hat, c;  // a row-major
  long double& A(int i, int j) { return a[static_cast<std::size_t>(i) * stages + j]; }
  // Fills the first column from the row sums and the last row from b (stiff accuracy).
  void complete() {
    for (int i = 1; i < stages; ++i) {
      long double rest = 0.0L;
      for (int j = 1; j <= i; ++j) rest += A(i, j);
      if (i < stages - 1) A(i, 0) = c[static_cast<std::size_t>(i)] - rest;
    }
    for (int j = 0; j < stages; ++j) A(stages - 1, j) = b[static_cast<std::size_t>(j)];
  }
};

inline LongTableau esdirk436_long() {
  const long double r2 = std::sqrt(2.0L);
  LongTableau t;
  t.stages = 6;
  t.a.assign(36, 0.0L);
  t.c = {0.0L, 0.5L, (2.0L - r2) / 4.0L, 5.0L / 8.0L, 26.0L / 25.0L, 1.0L};
  const long double b1 = (1181.0L - 987.0L * r2) / 13782.0L;
  t.b = {b1,
         b1,
         47.0L * (-267.0L + 1783.0L * r2) / 273343.0L,
         -16.0L * (-22922.0L + 3525.0L * r2) / 571953.0L,
         -15625.0L * (97.0L + 376.0L * r2) / 90749876.0L,
         0.25L};
  const long double d1 = -480923228411.0L / 4982971448372.0L;
  t.b_hat = {d1,
             d1,
             6709447293961.0L / 12833189095359.0L,
             3513175791894.0L / 6748737351361.0L,
             -498863281070.0L / 6042575550617.0L,
             2077005547802.0L / 8945017530137.0L};
  for (int i = 1; i < 6; ++i) t.A(i, i) = 0.25L;
  t.A(2, 1) = (1.0L - r2) / 8.0L;
  t.A(3, 1) = (5.0L - 7.0L * r2) / 64.0L;
  t.A(3, 2) = 7.0L * (1.0L + r2) / 32.0L;
  t.A(4, 1) = -(13796.0L + 54539.0L * r2) / 125000.0L;
  t.A(4, 2) = (506605.0L + 132109.0L * r2) / 437500.0L;
  t.A(4, 3) = 166.0L * (-97.0L + 376.0L * r2) / 109375.0L;
  t.complete();
  return t;
}

inline LongTableau esdirk547_long() {
  LongTableau t;
  t.stages = 7;
  t.a.assign(49, 0.0L);
  t.c = {0.0L,
         46.0L / 125.0L,
         1518047795759.0L / 14084074382095.0L,
         13.0L / 25.0L,
         5906118540659.0L / 9042400211275.0L,
         26.0L / 25.0L,
         1.0L};
  t.b = {0.0L,
         -1319096626979.0L / 17356965168099.0L,
         4356877330928.0L / 10268933656267.0L,
         922991294344.0L / 3350617878647.0L,
         4729382008034.0L / 14755765856909.0L,
         -308199069217.0L / 5897303561678.0L,
         23.0L / 125.0L};
  t.b_hat = {0.0L,
             -12068858301481.0L / 111697653055985.0L,
             30204157393951.0L / 62440428688139.0L,
             26156819792768.0L / 110856972047457.0L,
             33531609809941.0L / 89326307438822.0L,
             -18686091006953.0L / 578397443530870.0L,
             10582397456777.0L / 69011126173064.0L};
  long double sb = 0.0L, sd = 0.0L;
  for (int j = 1; j < 7; ++j) {
    sb += t.b[static_cast<std::size_t>(j)];
    sd += t.b_hat[static_cast<std::size_t>(j)];
  }
  t.b[0] = 1.0L - sb;
  t.b_hat[0] = 1.0L - sd;
  for (int i = 1; i < 7; ++i) t.A(i, i) = 23.0L / 125.0L;
  t.A(2, 1) = -121529886477.0L / 3189120653983.0L;
  t.A(3, 1) = 186345625210.0L / 8596203768457.0L;
  t.A(3, 2) = 3681435451073.0L / 12579882114497.0L;
  t.A(4, 1) = -9898129553915.0L / 11630542248213.0L;
  t.A(4, 2) = 19565727496993.0L / 11159348038501.0L;
  t.A(4, 3) = 2073446517052.0L / 4961027473423.0L;
  t.A(5, 1) = -39752543191591.0L / 7894275939720.0L;
  t.A(5, 2) = 52228808998390.0L / 5821762529307.0L;
  t.A(5, 3) = 2756378382725.0L / 8748785577174.0L;
  t.A(5, 4) = 17322065038796.0L / 10556643942083.0L;
  t.complete();
  return t;
}

}  // namespace esdirk::internal
