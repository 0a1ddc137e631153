package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/types"
)

// pg_proc holds the functions the other catalogs name: the types' input,
// output, send, receive and typmod functions, and the access methods'
// handlers, with PostgreSQL 15's oids, so that pg_type.typinput is a
// regproc, and 'pg_catalog.array_in'::regproc (which pgjdbc compares with
// typinput to learn whether a type is an array) finds array_in. epochdb's
// built-in SQL functions are not listed: they have no oids. The
// functions CREATE FUNCTION made are (functions.go).

func init() {
	for line := range strings.Lines(strings.TrimSpace(builtinProcs)) {
		f := strings.Fields(line)
		oid, _ := strconv.ParseUint(f[0], 10, 32)
		ret, _ := strconv.ParseUint(f[2], 10, 32)
		p := proc{oid: uint32(oid), name: f[1], ret: uint32(ret), volatile: f[4]}
		if f[3] != "-" {
			for a := range strings.SplitSeq(f[3], ",") {
				n, _ := strconv.ParseUint(a, 10, 32)
				p.args = append(p.args, uint32(n))
			}
		}
		procs = append(procs, p)
		procsByName[p.name] = p.oid
		procsByOID[p.oid] = p.name
	}
}

// builtinProcs is "oid name rettype argtypes volatility" per function, from
// PostgreSQL 15's pg_proc; argtypes is comma-separated, or - for none.
const builtinProcs = `
3 heap_tableam_handler 269 2281 v
31 byteaout 2275 17 i
33 charout 2275 18 i
34 namein 19 2275 i
35 nameout 2275 19 i
38 int2in 21 2275 i
39 int2out 2275 21 i
40 int2vectorin 22 2275 i
41 int2vectorout 2275 22 i
42 int4in 23 2275 i
43 int4out 2275 23 i
44 regprocin 24 2275 s
45 regprocout 2275 24 s
46 textin 25 2275 i
47 textout 2275 25 i
54 oidvectorin 30 2275 i
55 oidvectorout 2275 30 i
109 unknownin 705 2275 i
110 unknownout 2275 705 i
200 float4in 700 2275 i
201 float4out 2275 700 i
214 float8in 701 2275 i
215 float8out 2275 701 i
267 table_am_handler_in 269 2275 i
268 table_am_handler_out 2275 269 i
326 index_am_handler_in 325 2275 i
327 index_am_handler_out 2275 325 i
330 bthandler 325 2281 v
460 int8in 20 2275 i
461 int8out 2275 20 i
750 array_in 2277 2275,26,23 s
751 array_out 2275 2277 s
1044 bpcharin 1042 2275,26,23 i
1045 bpcharout 2275 1042 i
1046 varcharin 1043 2275,26,23 i
1047 varcharout 2275 1043 i
1084 date_in 1082 2275 s
1085 date_out 2275 1082 s
1143 time_in 1083 2275,26,23 s
1144 time_out 2275 1083 i
1150 timestamptz_in 1184 2275,26,23 s
1151 timestamptz_out 2275 1184 s
1160 interval_in 1186 2275,26,23 s
1161 interval_out 2275 1186 s
1242 boolin 16 2275 i
1243 boolout 2275 16 i
1244 byteain 17 2275 i
1245 charin 18 2275 i
1312 timestamp_in 1114 2275,26,23 s
1313 timestamp_out 2275 1114 s
1701 numeric_in 1700 2275,26,23 i
1702 numeric_out 2275 1700 i
1798 oidin 26 2275 i
1799 oidout 2275 26 i
2212 regprocedurein 2202 2275 s
2213 regprocedureout 2275 2202 s
2218 regclassin 2205 2275 s
2219 regclassout 2275 2205 s
2220 regtypein 2206 2275 s
2221 regtypeout 2275 2206 s
2290 record_in 2249 2275,26,23 s
2291 record_out 2275 2249 s
2292 cstring_in 2275 2275 i
2293 cstring_out 2275 2275 i
2296 anyarray_in 2277 2275 i
2297 anyarray_out 2275 2277 s
2298 void_in 2278 2275 i
2299 void_out 2275 2278 i
2304 internal_in 2281 2275 i
2305 internal_out 2275 2281 i
2312 anyelement_in 2283 2275 i
2313 anyelement_out 2275 2283 i
2400 array_recv 2277 2281,26,23 s
2401 array_send 17 2277 s
2402 record_recv 2249 2281,26,23 s
2403 record_send 17 2249 s
2404 int2recv 21 2281 i
2405 int2send 17 21 i
2406 int4recv 23 2281 i
2407 int4send 17 23 i
2408 int8recv 20 2281 i
2409 int8send 17 20 i
2410 int2vectorrecv 22 2281 i
2411 int2vectorsend 17 22 i
2412 bytearecv 17 2281 i
2413 byteasend 17 17 i
2414 textrecv 25 2281 s
2415 textsend 17 25 s
2416 unknownrecv 705 2281 i
2417 unknownsend 17 705 i
2418 oidrecv 26 2281 i
2419 oidsend 17 26 i
2420 oidvectorrecv 30 2281 i
2421 oidvectorsend 17 30 i
2422 namerecv 19 2281 s
2423 namesend 17 19 s
2424 float4recv 700 2281 i
2425 float4send 17 700 i
2426 float8recv 701 2281 i
2427 float8send 17 701 i
2430 bpcharrecv 1042 2281,26,23 s
2431 bpcharsend 17 1042 s
2432 varcharrecv 1043 2281,26,23 s
2433 varcharsend 17 1043 s
2434 charrecv 18 2281 i
2435 charsend 17 18 i
2436 boolrecv 16 2281 i
2437 boolsend 17 16 i
2444 regprocrecv 24 2281 i
2445 regprocsend 17 24 i
2446 regprocedurerecv 2202 2281 i
2447 regproceduresend 17 2202 i
2452 regclassrecv 2205 2281 i
2453 regclasssend 17 2205 i
2454 regtyperecv 2206 2281 i
2455 regtypesend 17 2206 i
2460 numeric_recv 1700 2281,26,23 i
2461 numeric_send 17 1700 i
2468 date_recv 1082 2281 i
2469 date_send 17 1082 i
2470 time_recv 1083 2281,26,23 i
2471 time_send 17 1083 i
2474 timestamp_recv 1114 2281,26,23 i
2475 timestamp_send 17 1114 i
2476 timestamptz_recv 1184 2281,26,23 i
2477 timestamptz_send 17 1184 i
2478 interval_recv 1186 2281,26,23 i
2479 interval_send 17 1186 i
2500 cstring_recv 2275 2281 s
2501 cstring_send 17 2275 s
2502 anyarray_recv 2277 2281 s
2503 anyarray_send 17 2277 s
2903 intervaltypmodin 23 1263 i
2904 intervaltypmodout 2275 23 i
2905 timestamptypmodin 23 1263 i
2906 timestamptypmodout 2275 23 i
2907 timestamptztypmodin 23 1263 i
2908 timestamptztypmodout 2275 23 i
2909 timetypmodin 23 1263 i
2910 timetypmodout 2275 23 i
2913 bpchartypmodin 23 1263 i
2914 bpchartypmodout 2275 23 i
2915 varchartypmodin 23 1263 i
2916 varchartypmodout 2275 23 i
2917 numerictypmodin 23 1263 i
2918 numerictypmodout 2275 23 i
321 json_in 114 2275 i
322 json_out 2275 114 i
323 json_recv 114 2281 i
324 json_send 17 114 i
3803 jsonb_send 17 3802 i
3804 jsonb_out 2275 3802 i
3805 jsonb_recv 3802 2281 i
3806 jsonb_in 3802 2275 i
436 macaddr_in 829 2275 i
437 macaddr_out 2275 829 i
910 inet_in 869 2275 i
911 inet_out 2275 869 i
1267 cidr_in 650 2275 i
1427 cidr_out 2275 650 i
2494 macaddr_recv 829 2281 i
2495 macaddr_send 17 829 i
2496 inet_recv 869 2281 i
2497 inet_send 17 869 i
2498 cidr_recv 650 2281 i
2499 cidr_send 17 650 i
3446 macaddr8_recv 774 2281 i
3447 macaddr8_send 17 774 i
4110 macaddr8_in 774 2275 i
4111 macaddr8_out 2275 774 i
2952 uuid_in 2950 2275 i
2953 uuid_out 2275 2950 i
2961 uuid_recv 2950 2281 i
2962 uuid_send 17 2950 i
3120 void_recv 2278 2281 i
3121 void_send 17 2278 i
3816 array_typanalyze 16 2281 s
4084 regnamespacein 4089 2275 s
4085 regnamespaceout 2275 4089 s
4087 regnamespacerecv 4089 2281 i
4088 regnamespacesend 17 4089 i
4092 regroleout 2275 4096 s
4094 regrolerecv 4096 2281 i
4095 regrolesend 17 4096 i
4098 regrolein 4096 2275 s
6179 array_subscript_handler 2281 2281 i
6180 raw_array_subscript_handler 2281 2281 i
`

type proc struct {
	oid      uint32
	name     string
	ret      uint32
	args     []uint32
	volatile string
}

var (
	procs       []proc
	procsByName = map[string]uint32{}
	procsByOID  = map[uint32]string{}
)

// regproc is the regproc value naming a built-in function, or "-" for "".
func regproc(name string) types.Reg {
	return types.Reg{Oid: types.Oid(procsByName[name]), Name: name}
}

func pgProcRows(h Host) []row {
	rows := make([]row, len(procs), len(procs)+len(h.Catalog().FunctionByID))
	for i, p := range procs {
		rows[i] = row{"oid": p.oid, "proname": p.name, "pronamespace": OidPgCatalog, "proowner": oidSuperuser,
			"prolang": 12, "procost": float64(1), "prosupport": regproc(""), "prokind": "f", "proisstrict": true,
			"provolatile": p.volatile, "proparallel": "s", "pronargs": len(p.args), "prorettype": p.ret,
			"proargtypes": p.args, "prosrc": p.name}
	}
	return append(rows, userProcRows(h)...)
}
