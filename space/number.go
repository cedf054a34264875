package space

import "strconv"

// Number is the one conversion of a knob value to a float64: integers of
// any width and floats are numbers; so is a numeric string when strings
// is set (a value given on the command line with --set). Words such as
// "default", booleans and NaN are not numbers.
func Number(v any, strings bool) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	case float64:
		f = x
	case string:
		if !strings {
			return 0, false
		}
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return f, f == f // NaN is not a number
}
