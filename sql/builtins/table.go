package builtins

import (
	"math"
	"slices"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/types"
)

// table is every function this package has, by name, with its overloads.
// A new function goes in its family's file and here.
var table = map[string][]Overload{
	// math.go
	"sqrt":  numeric1(floatSqrt, numericSqrt),
	"exp":   numeric1(floatExp, numericExp),
	"ln":    numeric1(floatLn, numericLn),
	"log10": numeric1(floatLog10, numericLog10),
	// log(x) is the base-10 logarithm; log(b, x) PostgreSQL has for
	// numeric only.
	"log": slices.Concat(numeric1(floatLog10, numericLog10), []Overload{{
		Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric,
		Fn: func(_ Env, a []any) (any, error) { return numericLog(a[0].(*apd.Decimal), a[1].(*apd.Decimal)) },
	}}),
	"sign":   numeric1(floatSign, numericSign),
	"power":  numeric2(floatPow, numericPower),
	"pow":    numeric2(floatPow, numericPower),
	"pi":     one(types.Float8, nil, pi),
	"random": {{Ret: types.Float8, Volatility: Volatile, Fn: random}},
	"abs": {
		absInt(types.Int2, "smallint", math.MinInt16), absInt(types.Int4, "integer", math.MinInt32),
		absInt(types.Int8, "bigint", math.MinInt64), floatOf(types.Float4, math.Abs),
		floatOf(types.Float8, math.Abs), numericOf((*apd.Context).Abs),
	},
	"ceil":         {floatOf(types.Float8, math.Ceil), numericOf((*apd.Context).Ceil)},
	"ceiling":      {floatOf(types.Float8, math.Ceil), numericOf((*apd.Context).Ceil)},
	"floor":        {floatOf(types.Float8, math.Floor), numericOf((*apd.Context).Floor)},
	"round":        round(false),
	"width_bucket": widthBucket(),
	"trunc":        slices.Concat(round(true), macTrunc),

	// clock.go
	"now":                   clockFunc(types.Timestamptz, Stable, transactionTime),
	"current_timestamp":     clockFunc(types.Timestamptz, Stable, transactionTime),
	"transaction_timestamp": clockFunc(types.Timestamptz, Stable, transactionTime),
	"statement_timestamp":   clockFunc(types.Timestamptz, Stable, statementTime),
	"clock_timestamp":       clockFunc(types.Timestamptz, Volatile, wallClock),
	"current_date":          clockFunc(types.Date, Stable, currentDate),
	"pg_sleep": {{Args: []types.T{types.Float8}, Ret: types.T{Oid: types.OidVoid, Mod: -1},
		Volatility: Volatile, Fn: pgSleep}},

	// dates.go
	"date_trunc": dateTrunc(),
	"date_bin": {
		{Args: []types.T{types.IntervalType, types.Timestamp, types.Timestamp}, Ret: types.Timestamp, Fn: dateBin},
		{Args: []types.T{types.IntervalType, types.Timestamptz, types.Timestamptz}, Ret: types.Timestamptz, Fn: dateBin},
	},
	"age":      ageOverloads(),
	"timezone": timezone(),
	"isfinite": {
		{Args: []types.T{types.Date}, Ret: types.Bool, Fn: isFinite},
		{Args: []types.T{types.Timestamp}, Ret: types.Bool, Fn: isFinite},
		{Args: []types.T{types.Timestamptz}, Ret: types.Bool, Fn: isFinite},
		{Args: []types.T{types.IntervalType}, Ret: types.Bool, Fn: isFinite},
	},
	"justify_days":     interval1(justifyDays),
	"justify_hours":    interval1(justifyHours),
	"justify_interval": interval1(justifyInterval),
	"make_date": {{Args: []types.T{types.Int4, types.Int4, types.Int4}, Ret: types.Date, Fn: makeDate,
		Params: []string{"year", "month", "day"}}},
	"make_time": {{Args: []types.T{types.Int4, types.Int4, types.Float8}, Ret: types.TimeType, Fn: makeTime,
		Params: []string{"hour", "min", "sec"}}},
	"make_timestamp": {{Args: timestampArgs, Ret: types.Timestamp, Fn: makeTimestampFn, Params: timestampParams}},
	"make_timestamptz": {
		{Args: timestampArgs, Ret: types.Timestamptz, Volatility: Stable, Fn: makeTimestamptz, Params: timestampParams},
		{Args: append(slices.Clip(timestampArgs), types.Text), Ret: types.Timestamptz, Volatility: Stable,
			Fn: makeTimestamptz, Params: append(slices.Clip(timestampParams), "timezone")},
	},
	"make_interval": {{
		Args: []types.T{types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Float8},
		Ret:  types.IntervalType, Fn: makeInterval,
		Params:   []string{"years", "months", "weeks", "days", "hours", "mins", "secs"},
		Defaults: []any{int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), 0.0},
	}},

	// extract.go
	"extract":   extract(false),
	"date_part": extract(true),

	// datefmt.go
	"to_char": toChar(),
	"to_number": {{Args: []types.T{types.Text, types.Text}, Ret: types.Numeric, Volatility: Stable,
		Fn: func(_ Env, a []any) (any, error) { return toNumber(a[0].(string), a[1].(string)) }}},
	"to_date": {{Args: []types.T{types.Text, types.Text}, Ret: types.Date, Volatility: Stable, Fn: toDate}},
	"to_timestamp": {
		{Args: []types.T{types.Text, types.Text}, Ret: types.Timestamptz, Volatility: Stable, Fn: toTimestamp},
		{Args: []types.T{types.Float8}, Ret: types.Timestamptz, Fn: unixToTimestamp},
	},

	// arrays.go
	"array_length":    dimension1(func(_ types.T, a []any) int { return len(a) }),
	"array_lower":     dimension1(func(t types.T, _ []any) int { return types.LowerBound(t) }),
	"array_upper":     dimension1(func(t types.T, a []any) int { return types.LowerBound(t) + len(a) - 1 }),
	"array_ndims":     {arrayOf(types.Int4, nil, arrayNdims)},
	"cardinality":     {arrayOf(types.Int4, nil, cardinality)},
	"array_dims":      {arrayOf(types.Text, nil, arrayDims)},
	"trim_array":      {arrayOf(AnyArray, []types.T{types.Int4}, trimArray)},
	"array_to_string": arrayToString(),
	"string_to_array": one(types.TextArray, []types.T{types.Text, types.Text}, stringToArray),
	"array_append":    {compatible([]types.T{AnyCompatibleArray, AnyCompatible}, AnyCompatibleArray, arrayAppend)},
	"array_prepend":   {compatible([]types.T{AnyCompatible, AnyCompatibleArray}, AnyCompatibleArray, arrayPrepend)},
	"array_cat":       {compatible([]types.T{AnyCompatibleArray, AnyCompatibleArray}, AnyCompatibleArray, arrayCat)},
	"array_remove":    {compatible([]types.T{AnyCompatibleArray, AnyCompatible}, AnyCompatibleArray, arrayRemove)},
	"array_replace": {compatible([]types.T{AnyCompatibleArray, AnyCompatible, AnyCompatible}, AnyCompatibleArray,
		arrayReplace)},
	"array_position": {
		compatible([]types.T{AnyCompatibleArray, AnyCompatible}, types.Int4, arrayPosition),
		compatible([]types.T{AnyCompatibleArray, AnyCompatible, types.Int4}, types.Int4, arrayPosition),
	},
	"array_positions": {compatible([]types.T{AnyCompatibleArray, AnyCompatible}, types.T{Oid: types.OidInt4Array, Mod: -1},
		arrayPositions)},

	// json.go
	"jsonb_exists":       one(types.Bool, []types.T{types.JSONBType, types.Text}, jsonFn(jsonbExists)),
	"jsonb_exists_any":   one(types.Bool, []types.T{types.JSONBType, types.TextArray}, jsonFn(jsonbExistsAny(false))),
	"jsonb_exists_all":   one(types.Bool, []types.T{types.JSONBType, types.TextArray}, jsonFn(jsonbExistsAny(true))),
	"jsonb_typeof":       one(types.Text, []types.T{types.JSONBType}, jsonFn(jsonTypeof)),
	"json_typeof":        one(types.Text, []types.T{types.JSONType}, jsonFn(jsonTypeof)),
	"jsonb_array_length": one(types.Int4, []types.T{types.JSONBType}, jsonFn(jsonArrayLength)),
	"json_array_length":  one(types.Int4, []types.T{types.JSONType}, jsonFn(jsonArrayLength)),
	"jsonb_pretty":       one(types.Text, []types.T{types.JSONBType}, jsonFn(jsonbPretty)),
	"jsonb_strip_nulls":  one(types.JSONBType, []types.T{types.JSONBType}, jsonFn(jsonbStripNulls)),
	"json_strip_nulls":   one(types.JSONType, []types.T{types.JSONType}, jsonFn(jsonStripNulls)),
	"jsonb_set": {{Args: []types.T{types.JSONBType, types.TextArray, types.JSONBType, types.Bool}, Ret: types.JSONBType, Fn: jsonbSet,
		Params: []string{"jsonb_in", "path", "replacement", "create_if_missing"}, Defaults: []any{true}}},
	"jsonb_extract_path":        extractPathFn(types.JSONBType, false),
	"jsonb_extract_path_text":   extractPathFn(types.JSONBType, true),
	"json_extract_path":         extractPathFn(types.JSONType, false),
	"json_extract_path_text":    extractPathFn(types.JSONType, true),
	"to_jsonb":                  toJSON(types.JSONBType, false),
	"to_json":                   toJSON(types.JSONType, false),
	"row_to_json":               toJSON(types.JSONType, true),
	"jsonb_build_object":        buildObject(types.JSONBType),
	"json_build_object":         buildObject(types.JSONType),
	"jsonb_build_array":         buildArray(types.JSONBType),
	"json_build_array":          buildArray(types.JSONType),
	"jsonb_object_keys":         jsonRows("jsonb_object_keys", types.JSONBType),
	"json_object_keys":          jsonRows("json_object_keys", types.JSONType),
	"jsonb_each":                jsonRows("jsonb_each", types.JSONBType),
	"json_each":                 jsonRows("json_each", types.JSONType),
	"jsonb_each_text":           jsonRows("jsonb_each_text", types.JSONBType),
	"json_each_text":            jsonRows("json_each_text", types.JSONType),
	"jsonb_array_elements":      jsonRows("jsonb_array_elements", types.JSONBType),
	"json_array_elements":       jsonRows("json_array_elements", types.JSONType),
	"jsonb_array_elements_text": jsonRows("jsonb_array_elements_text", types.JSONBType),
	"json_array_elements_text":  jsonRows("json_array_elements_text", types.JSONType),

	// session.go
	"version":          sessionFunc(types.Text, func(s Session) any { return s.Version }),
	"current_database": sessionFunc(types.Name, func(s Session) any { return s.Database }),
	"current_catalog":  sessionFunc(types.Name, func(s Session) any { return s.Database }),
	"current_user":     sessionFunc(types.Name, func(s Session) any { return s.User }),
	"current_role":     sessionFunc(types.Name, func(s Session) any { return s.User }),
	"session_user":     sessionFunc(types.Name, func(s Session) any { return s.User }),
	"user":             sessionFunc(types.Name, func(s Session) any { return s.User }),
	"pg_backend_pid":   sessionFunc(types.Int4, func(s Session) any { return int64(s.PID) }),
	"current_setting":  {{Args: []types.T{types.Text}, Ret: types.Text, Volatility: Stable, Fn: currentSetting}},
	"set_config": {{Args: []types.T{types.Text, types.Text, types.Bool}, Ret: types.Text, Volatility: Volatile,
		Fn: setConfig}},

	// series.go
	"generate_series":     generateSeries(),
	"unnest":              {{Args: []types.T{AnyArray}, Ret: AnyElement, Rows: unnest}},
	"generate_subscripts": generateSubscripts(),

	// uuid.go
	"gen_random_uuid": {{Ret: types.UUIDType, Volatility: Volatile, Fn: genRandomUUID}},

	// network.go; trunc of a MAC address is with the math functions'.
	"abbrev":           inetAbbrev,
	"host":             inet1(types.Text, inetText(types.AppendHost)),
	"text":             inetShow,
	"family":           inet1(types.Int4, func(a types.Inet) (any, error) { return int64(a.Family()), nil }),
	"masklen":          inet1(types.Int4, func(a types.Inet) (any, error) { return int64(a.Bits), nil }),
	"broadcast":        inet1(types.InetType, broadcast),
	"hostmask":         inet1(types.InetType, hostmask),
	"netmask":          inet1(types.InetType, func(a types.Inet) (any, error) { return a.Netmask(), nil }),
	"network":          inet1(types.CidrType, network),
	"cidr":             inet1(types.CidrType, network),
	"inet_same_family": one(types.Bool, inet2, inetFn2(func(a, b types.Inet) (any, error) { return a.IPv6 == b.IPv6, nil })),
	"inet_merge":       one(types.CidrType, inet2, inetFn2(inetMerge)),
	"set_masklen": {
		{Args: []types.T{types.InetType, types.Int4}, Ret: types.InetType, Fn: setMasklen(false)},
		{Args: []types.T{types.CidrType, types.Int4}, Ret: types.CidrType, Fn: setMasklen(true)},
	},
	"macaddr8":         one(types.Macaddr8Type, macArg, func(_ Env, a []any) (any, error) { return types.MacaddrTo8(a[0].(types.Macaddr)), nil }),
	"macaddr":          one(types.MacaddrType, mac8Arg, func(_ Env, a []any) (any, error) { return types.Macaddr8To6(a[0].(types.Macaddr8)) }),
	"macaddr8_set7bit": one(types.Macaddr8Type, mac8Arg, macaddr8Set7bit),

	// strings.go
	"lower":       str1(types.Text, lower),
	"upper":       str1(types.Text, upper),
	"reverse":     str1(types.Text, reverse),
	"md5":         str1(types.Text, md5Hex),
	"initcap":     str1(types.Text, initcap),
	"ascii":       str1(types.Int4, ascii),
	"replace":     one(types.Text, []types.T{types.Text, types.Text, types.Text}, replace),
	"left":        one(types.Text, []types.T{types.Text, types.Int4}, left),
	"right":       one(types.Text, []types.T{types.Text, types.Int4}, right),
	"repeat":      one(types.Text, []types.T{types.Text, types.Int4}, repeat),
	"strpos":      one(types.Int4, []types.T{types.Text, types.Text}, strpos),
	"position":    one(types.Int4, []types.T{types.Text, types.Text}, position),
	"locate":      one(types.Int4, []types.T{types.Text, types.Text}, position),
	"split_part":  one(types.Text, []types.T{types.Text, types.Text, types.Int4}, splitPartFn),
	"starts_with": one(types.Bool, []types.T{types.Text, types.Text}, startsWith),
	"chr":         one(types.Text, []types.T{types.Int4}, chr),

	// text.go
	"substr":           substr(),
	"btrim":            trim(true, true),
	"ltrim":            trim(true, false),
	"rtrim":            trim(false, true),
	"lpad":             pad(true),
	"rpad":             pad(false),
	"length":           length(false, true),
	"char_length":      length(false, false),
	"character_length": length(false, false),
	"octet_length":     length(true, true),
	"bit_length":       bitLength(),
	"to_hex":           toHex(),
	"translate": one(types.Text, textTextText, func(_ Env, a []any) (any, error) {
		return translate(a[0].(string), a[1].(string), a[2].(string)), nil
	}),
	"overlay":        overlayOverloads(),
	"quote_ident":    str1(types.Text, func(s string) any { return parser.QuoteIdent(s) }),
	"quote_literal":  quoteLiteral(false),
	"quote_nullable": quoteLiteral(true),
	"concat":         concat(),
	"concat_ws":      concatWS(),
	"format":         format(),
	"like_escape":    one(types.Text, textText, likeEscape),
	"encode":         one(types.Text, []types.T{types.Bytea, types.Text}, encodeBytes),
	"decode":         one(types.Bytea, textText, decodeText),
	"sha224":         digest(sha224),
	"sha256":         digest(sha256Sum),
	"sha384":         digest(sha384),
	"sha512":         digest(sha512Sum),
	"convert_to":     {{Args: []types.T{types.Text, types.Name}, Ret: types.Bytea, Volatility: Stable, Fn: convertTo}},
	"convert_from":   {{Args: []types.T{types.Bytea, types.Name}, Ret: types.Text, Volatility: Stable, Fn: convertFrom}},

	// regex.go
	//
	// The parser writes a ~ b as epochdb_match(a, b), and a ~* b as
	// epochdb_match(a, b, 'i').
	"epochdb_match":         regexOverloads(types.Bool, regexpLike, "regexp_like", false),
	"regexp_like":           regexOverloads(types.Bool, regexpLike, "regexp_like", false),
	"regexp_match":          regexOverloads(types.TextArray, regexpMatch, "regexp_match", false),
	"regexp_split_to_array": regexOverloads(types.TextArray, func(s string, re *pgRegex) (any, error) { return regexpSplit(re, s), nil }, "regexp_split_to_array", false),
	"regexp_matches":        regexRows(types.TextArray, regexpMatches, "regexp_matches", true),
	"regexp_split_to_table": regexRows(types.Text, func(s string, re *pgRegex) []any { return regexpSplit(re, s) }, "regexp_split_to_table", false),
	"regexp_replace":        regexpReplace(),
	"regexp_count":          regexSearch("regexp_count", types.Int4, []string{"start", "flags"}, regexpCount),
	"regexp_instr":          regexSearch("regexp_instr", types.Int4, []string{"start", "n", "endoption", "flags", "subexpr"}, regexpInstr),
	"regexp_substr":         regexSearch("regexp_substr", types.Text, []string{"start", "n", "flags", "subexpr"}, regexpSubstr),
	"similar_to_escape": {
		{Args: []types.T{types.Text}, Ret: types.Text, Fn: similarToEscape},
		{Args: textText, Ret: types.Text, Fn: similarToEscape},
	},
	"substring": slices.Concat(substr(), []Overload{
		{Args: textText, Ret: types.Text, Fn: substringPattern},
		{Args: textTextText, Ret: types.Text, Fn: substringPattern},
	}),
}

// operators is every operator this package has, by name, with its
// overloads: two arguments for an infix operator, one for a prefix one. The parser writes those
// TiDB lacks as calls (a -> b is epochdb_arrow(a, b)), which the planner
// resolves here.
var operators = map[string][]Overload{
	// datearith.go; the numbers' own arithmetic is the planner's.
	"+": slices.Concat(datePlus(), inetPlusOps),
	"*": intervalTimesOps(),
	"/": intervalDivOps(),

	// bitwise.go, and network.go's for the network types; ~ is the
	// prefix operator, one argument.
	"&":   slices.Concat(bitOp("&"), bitwiseNetwork("AND", func(x, y byte) byte { return x & y })),
	"|":   slices.Concat(bitOp("|"), bitwiseNetwork("OR", func(x, y byte) byte { return x | y })),
	"#":   bitOp("#"),
	"<<":  slices.Concat(bitOp("<<"), inetSub),
	">>":  slices.Concat(bitOp(">>"), inetSup),
	"~":   slices.Concat(bitNot(), networkNot),
	"<<=": inetSubEq,
	">>=": inetSupEq,

	// json.go
	"->":  arrow(false),
	"->>": arrow(true),
	"#>":  pathOp(false),
	"#>>": pathOp(true),
	"@>":  contains(false),
	"<@":  contains(true),
	"&&":  slices.Concat([]Overload{{Args: []types.T{AnyArray, AnyArray}, Ret: types.Bool, Typed: overlap}}, inetOverlap),
	"?":   one(types.Bool, []types.T{types.JSONBType, types.Text}, jsonFn(jsonbExists)),
	"?|":  one(types.Bool, []types.T{types.JSONBType, types.TextArray}, jsonFn(jsonbExistsAny(false))),
	"?&":  one(types.Bool, []types.T{types.JSONBType, types.TextArray}, jsonFn(jsonbExistsAny(true))),
	"#-":  one(types.JSONBType, []types.T{types.JSONBType, types.TextArray}, jsonFn(jsonbDeletePath)),
	"-":   slices.Concat(dateMinus(), jsonbMinus(), inetMinusOps),
	"||": {{Args: []types.T{types.JSONBType, types.JSONBType}, Ret: types.JSONBType, Fn: jsonFn(func(j *types.JSON, a []any) (any, error) {
		return jsonbConcat(j, a[0].(*types.JSON))
	})}},
}
