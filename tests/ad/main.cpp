#define BOOST_TEST_MODULE esdirk ad
#include <boost/test/unit_test.hpp>
