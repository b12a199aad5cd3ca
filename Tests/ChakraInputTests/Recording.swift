@testable import ChakraInput

// A tiny vocabulary for recorded event sequences, spelled as evtest prints
// them. Values are those of linux/input-event-codes.h.
let SLOT = EventCode.ABS_MT_SLOT
let TRACKING_ID = EventCode.ABS_MT_TRACKING_ID
let MT_X = EventCode.ABS_MT_POSITION_X
let MT_Y = EventCode.ABS_MT_POSITION_Y
let ABS_X = EventCode.ABS_X
let ABS_Y = EventCode.ABS_Y

func abs(_ code: UInt16, _ value: Int32) -> InputEvent { InputEvent(EventCode.EV_ABS, code, value) }
func key(_ code: UInt16, _ value: Int32) -> InputEvent { InputEvent(EventCode.EV_KEY, code, value) }
func touchKey(_ down: Bool) -> InputEvent { key(EventCode.BTN_TOUCH, down ? 1 : 0) }
func report(_ time: Double = 0) -> InputEvent { InputEvent(EventCode.EV_SYN, EventCode.SYN_REPORT, 0, time: time) }
let mtReport = InputEvent(EventCode.EV_SYN, EventCode.SYN_MT_REPORT, 0)
let dropped = InputEvent(EventCode.EV_SYN, EventCode.SYN_DROPPED, 0)

func down(_ id: Int, _ x: Int32, _ y: Int32, _ time: Double = 0) -> TouchChange { TouchChange(.down, id: id, x: x, y: y, time: time) }
func move(_ id: Int, _ x: Int32, _ y: Int32, _ time: Double = 0) -> TouchChange { TouchChange(.move, id: id, x: x, y: y, time: time) }
func up(_ id: Int, _ x: Int32, _ y: Int32, _ time: Double = 0) -> TouchChange { TouchChange(.up, id: id, x: x, y: y, time: time) }
