// -----// IR Dump After AlignAllocSize (hivm-align-alloc-size) //----- //
func.func @vadd_infer_task_type_function() -> i8 attributes {hacc.function_kind = #hacc.function_kind<HOST>, hacc.host_func_type = #hacc.host_func_type<infer_task_type_function>} {
  %c10_i8 = arith.constant 10 : i8
  return %c10_i8 : i8
}

