package analyze

// smallInts holds any(int64(i)) for i in [0, 256): boxInt returns one of
// these instead of converting, which is a call into the runtime (whose
// own table of small values it then points into) for each constant.
// Static data, made by the linker from this literal, read and never
// written: the boxed values of every analysis share it.
var smallInts = [256]any{
	int64(0), int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7),
	int64(8), int64(9), int64(10), int64(11), int64(12), int64(13), int64(14), int64(15),
	int64(16), int64(17), int64(18), int64(19), int64(20), int64(21), int64(22), int64(23),
	int64(24), int64(25), int64(26), int64(27), int64(28), int64(29), int64(30), int64(31),
	int64(32), int64(33), int64(34), int64(35), int64(36), int64(37), int64(38), int64(39),
	int64(40), int64(41), int64(42), int64(43), int64(44), int64(45), int64(46), int64(47),
	int64(48), int64(49), int64(50), int64(51), int64(52), int64(53), int64(54), int64(55),
	int64(56), int64(57), int64(58), int64(59), int64(60), int64(61), int64(62), int64(63),
	int64(64), int64(65), int64(66), int64(67), int64(68), int64(69), int64(70), int64(71),
	int64(72), int64(73), int64(74), int64(75), int64(76), int64(77), int64(78), int64(79),
	int64(80), int64(81), int64(82), int64(83), int64(84), int64(85), int64(86), int64(87),
	int64(88), int64(89), int64(90), int64(91), int64(92), int64(93), int64(94), int64(95),
	int64(96), int64(97), int64(98), int64(99), int64(100), int64(101), int64(102), int64(103),
	int64(104), int64(105), int64(106), int64(107), int64(108), int64(109), int64(110), int64(111),
	int64(112), int64(113), int64(114), int64(115), int64(116), int64(117), int64(118), int64(119),
	int64(120), int64(121), int64(122), int64(123), int64(124), int64(125), int64(126), int64(127),
	int64(128), int64(129), int64(130), int64(131), int64(132), int64(133), int64(134), int64(135),
	int64(136), int64(137), int64(138), int64(139), int64(140), int64(141), int64(142), int64(143),
	int64(144), int64(145), int64(146), int64(147), int64(148), int64(149), int64(150), int64(151),
	int64(152), int64(153), int64(154), int64(155), int64(156), int64(157), int64(158), int64(159),
	int64(160), int64(161), int64(162), int64(163), int64(164), int64(165), int64(166), int64(167),
	int64(168), int64(169), int64(170), int64(171), int64(172), int64(173), int64(174), int64(175),
	int64(176), int64(177), int64(178), int64(179), int64(180), int64(181), int64(182), int64(183),
	int64(184), int64(185), int64(186), int64(187), int64(188), int64(189), int64(190), int64(191),
	int64(192), int64(193), int64(194), int64(195), int64(196), int64(197), int64(198), int64(199),
	int64(200), int64(201), int64(202), int64(203), int64(204), int64(205), int64(206), int64(207),
	int64(208), int64(209), int64(210), int64(211), int64(212), int64(213), int64(214), int64(215),
	int64(216), int64(217), int64(218), int64(219), int64(220), int64(221), int64(222), int64(223),
	int64(224), int64(225), int64(226), int64(227), int64(228), int64(229), int64(230), int64(231),
	int64(232), int64(233), int64(234), int64(235), int64(236), int64(237), int64(238), int64(239),
	int64(240), int64(241), int64(242), int64(243), int64(244), int64(245), int64(246), int64(247),
	int64(248), int64(249), int64(250), int64(251), int64(252), int64(253), int64(254), int64(255),
}
