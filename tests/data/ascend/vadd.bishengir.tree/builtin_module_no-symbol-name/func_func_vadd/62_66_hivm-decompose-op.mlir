// -----// IR Dump After HIVMDecomposeOp (hivm-decompose-op) //----- //
func.func @vadd(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xi8> {hacc.arg_type = #hacc.arg_type<workspace>}, %arg3: memref<?xf32> {tt.tensor_kind = 0 : i32}, %arg4: memref<?xf32> {tt.tensor_kind = 0 : i32}, %arg5: memref<?xf32> {tt.tensor_kind = 1 : i32}, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32) attributes {SyncBlockLockArgIdx = 0 : i64, WorkspaceArgIdx = 1 : i64, func_dyn_memref_args = dense<[false, true, true, true, true, true, false, false, false, false]> : vector<10xi1>, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv", parallel_mode = "simd"} {
  %cst = arith.constant 0.000000e+00 : f32
  %c1024 = arith.constant 1024 : index
  %c1024_i32 = arith.constant 1024 : i32
  %c0 = arith.constant 0 : index
  hivm.hir.set_mask_norm
  %0 = arith.muli %arg7, %arg8 : i32
  %1 = arith.muli %0, %arg9 : i32
  annotation.mark %1 {logical_block_num} : i32
  %2 = hivm.hir.get_block_idx -> i64
  %3 = arith.trunci %2 : i64 to i32
  %4 = arith.muli %arg9, %arg8 : i32
  %5 = arith.divsi %3, %4 : i32
  %6 = arith.remsi %5, %arg7 : i32
  %7 = arith.muli %6, %c1024_i32 : i32
  %8 = arith.index_cast %7 : i32 to index
  %reinterpret_cast = memref.reinterpret_cast %arg3 to offset: [%8], sizes: [1024], strides: [1] : memref<?xf32> to memref<1024xf32, strided<[1], offset: ?>>
  %alloc = memref.alloc() : memref<1024xf32>
  %9 = arith.index_cast %arg6 : i32 to index
  %10 = affine.max affine_map<()[s0, s1] -> (s1, s0)>()[%8, %9]
  %11 = affine.min affine_map<()[s0, s1] -> (s1 + 1024, s0)>()[%10, %8]
  %12 = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%11, %8]
  %13 = arith.cmpi slt, %12, %c1024 : index
  %subview = memref.subview %reinterpret_cast[0] [%12] [1] : memref<1024xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  %subview_0 = memref.subview %alloc[0] [%12] [1] : memref<1024xf32> to memref<?xf32, strided<[1]>>
  hivm.hir.load ins(%subview : memref<?xf32, strided<[1], offset: ?>>) outs(%subview_0 : memref<?xf32, strided<[1]>>) pad_mode = <PadValue> pad_value = %cst : f32 left_padding_num = %c0 : index init_out_buffer = true init_condition = %13 : i1 may_implicit_transpose_with_last_axis = false core_type = <VECTOR>
  %reinterpret_cast_1 = memref.reinterpret_cast %arg4 to offset: [%8], sizes: [1024], strides: [1] : memref<?xf32> to memref<1024xf32, strided<[1], offset: ?>>
  %alloc_2 = memref.alloc() : memref<1024xf32>
  %subview_3 = memref.subview %reinterpret_cast_1[0] [%12] [1] : memref<1024xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  %subview_4 = memref.subview %alloc_2[0] [%12] [1] : memref<1024xf32> to memref<?xf32, strided<[1]>>
  hivm.hir.load ins(%subview_3 : memref<?xf32, strided<[1], offset: ?>>) outs(%subview_4 : memref<?xf32, strided<[1]>>) pad_mode = <PadValue> pad_value = %cst : f32 left_padding_num = %c0 : index init_out_buffer = true init_condition = %13 : i1 may_implicit_transpose_with_last_axis = false core_type = <VECTOR>
  %reinterpret_cast_5 = memref.reinterpret_cast %arg5 to offset: [%8], sizes: [1024], strides: [1] : memref<?xf32> to memref<1024xf32, strided<[1], offset: ?>>
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  hivm.hir.vadd ins(%alloc, %alloc_2 : memref<1024xf32>, memref<1024xf32>) outs(%alloc_6 : memref<1024xf32>)
  %subview_7 = memref.subview %alloc_6[0] [%12] [1] : memref<1024xf32> to memref<?xf32, strided<[1]>>
  %subview_8 = memref.subview %reinterpret_cast_5[0] [%12] [1] : memref<1024xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  hivm.hir.store ins(%subview_7 : memref<?xf32, strided<[1]>>) outs(%subview_8 : memref<?xf32, strided<[1], offset: ?>>)
  return
}

