#define BOOST_TEST_MODULE test_structural
#include <boost/test/unit_test.hpp>
