/*
 * tclcl-int64-shim.cc  -- build adaptation for ns-2.35 with VCP (tools/ns2-vcp/build.sh
 * of ccsim; not part of VCP itself).
 *
 * ns-2.35 is configured with HAVE_INT64, so tools/queue-monitor.h binds its
 * 64-bit arrival/departure counters with TclObject::bind(const char*, int64_t*).
 * Debian's libtclcl1 (1.20-10) was built without HAVE_INT64 and therefore does
 * not export that overload (nor the int64_t delay_bind).  This file provides
 * both, using the same Tcl variable-trace mechanism tclcl uses for its other
 * InstVar types (see tclcl-1.20 Tcl.cc: InstVar::catch_var / InstVar::init).
 */
#include "config.h"
#include <tcl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(HAVE_INT64)

struct NsInt64Var {
	int64_t* val_;
};

static char* ns_int64_catch_var(ClientData cd, Tcl_Interp* interp,
				const char* name1, const char* name2, int flags)
{
	NsInt64Var* v = (NsInt64Var*)cd;
	if (flags & TCL_TRACE_WRITES) {
		const char* s = Tcl_GetVar(interp, name1, 0);
		if (s != 0)
			*v->val_ = (int64_t)strtoll(s, (char**)0, 0);
	} else if (flags & TCL_TRACE_READS) {
		char wrk[64];
		snprintf(wrk, sizeof(wrk), "%lld", (long long)*v->val_);
		(void)Tcl_SetVar2(interp, name1, name2, wrk, 0);
	} else if ((flags & TCL_TRACE_UNSETS) && (flags & TCL_TRACE_DESTROYED)) {
		delete v;
	}
	(void)name2;
	return 0;
}

static void ns_int64_trace(const char* var, int64_t* val)
{
	NsInt64Var* v = new NsInt64Var;
	v->val_ = val;
	Tcl_TraceVar(Tcl::instance().interp(), var,
		     TCL_TRACE_READS|TCL_TRACE_WRITES|TCL_TRACE_UNSETS,
		     (Tcl_VarTraceProc*)ns_int64_catch_var, (ClientData)v);
}

void TclObject::bind(const char* var, int64_t* val)
{
	create_instvar(var);
	ns_int64_trace(var, val);
	char wrk[256];
	snprintf(wrk, sizeof(wrk), "$self init-instvar %s", var);
	Tcl_Interp* in = Tcl::instance().interp();
	if (Tcl_Eval(in, wrk) != TCL_OK) {
		fprintf(stderr, "init-instvar %s: %s\n", var, Tcl_GetStringResult(in));
		exit(1);
	}
}

bool TclObject::delay_bind(const char* varName, const char* localName,
			   const char* thisVarName, int64_t* val,
			   TclObject* tracer)
{
	if (strcmp(varName, thisVarName) != 0)
		return false;
	if (tracer) {
		fprintf(stderr, "TclObject: %s is not a TracedVar.\n", thisVarName);
		abort();
	}
	if (TCL_OK != create_framevar(localName))
		abort();
	ns_int64_trace(localName, val);
	return true;
}

#endif /* HAVE_INT64 */
