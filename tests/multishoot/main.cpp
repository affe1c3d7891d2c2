#define BOOST_TEST_MODULE esdirk multishoot
#include <boost/test/unit_test.hpp>
