#define BOOST_TEST_MODULE esdirk geometric
#include <boost/test/unit_test.hpp>
