package abi_test

import (
	"fmt"

	"github.com/skillrun/skillrun/internal/abi"
)

func ExampleDecodeResponse() {
	ok := abi.EncodeResult(abi.OutputResult{Written: 5})
	fmt.Println(string(ok))
	denied := abi.EncodeError(abi.Errorf(abi.CodeDenied, "tools web_search denied"))
	fmt.Println(string(denied))
	_, err := abi.DecodeResponse(denied)
	fmt.Println(err)
	// Output:
	// {"ok":true,"result":{"written":5}}
	// {"ok":false,"error":{"code":"denied","message":"tools web_search denied"}}
	// denied: tools web_search denied
}
